/**
 * `AskUserA2AHandler`: the SDK's `DefaultRequestHandler` over an {@link AskUserA2AExecutor}, whose `CancelTask`
 * also cancels the question the task waits for. The SDK calls the executor's `cancelTask` only while it holds
 * the task's event bus; after a restart it marks the task cancelled by itself, so the question's id is read from
 * the stored task here, before the SDK's own cancel.
 */
import {
  DefaultPushNotificationSender,
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  type PushNotificationSender,
  type PushNotificationStore,
  type ServerCallContext,
  type TaskStore,
} from '@a2a-js/sdk/server';
import { TaskState, type AgentCard, type CancelTaskRequest, type Task } from '@a2a-js/sdk';
import { WorkflowNotFoundError } from '@temporalio/client';
import { AskUserA2AExecutor, type AskUserA2AExecutorOptions } from './a2a-executor';
import { questionIdOf } from './a2a-parts';

/** Options of {@link AskUserA2AHandler}. */
export interface AskUserA2AHandlerOptions extends AskUserA2AExecutorOptions {
  agentCard: AgentCard;
  /**
   * Where tasks are kept. A task that must outlive the process needs a durable one, such as the SDK's
   * `DatabaseTaskStore` (`@a2a-js/sdk/server/database`); docs/a2a.md says why.
   */
  taskStore: TaskStore;
  /** With `capabilities.pushNotifications`: where push configs are kept. Default: in memory. */
  pushNotificationStore?: PushNotificationStore;
  /** With `capabilities.pushNotifications`: who sends them. Default: the SDK's sender over the store. */
  pushNotificationSender?: PushNotificationSender;
}

/**
 * Serves an agent that asks through durable-ask-user over A2A; mount it with the SDK's `jsonRpcHandler`,
 * `restHandler` or `grpcService` as any request handler.
 *
 * @example
 * const handler = new AskUserA2AHandler({
 *   agentCard, taskStore, agentId: 'deploy-assistant', userInteraction, questions,
 *   run: async ({ text, userInteraction, agent }) => runMyAgent(text, { userInteraction, agent }),
 * });
 * app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
 */
export class AskUserA2AHandler extends DefaultRequestHandler {
  private readonly askUser: AskUserA2AExecutor;
  private readonly store: TaskStore;
  private readonly questionsClient: AskUserA2AExecutorOptions['questions'];

  constructor(options: AskUserA2AHandlerOptions) {
    const pushes = options.agentCard.capabilities?.pushNotifications === true;
    const pushStore = pushes
      ? (options.pushNotificationStore ?? new InMemoryPushNotificationStore())
      : undefined;
    const sender =
      pushStore === undefined
        ? undefined
        : (options.pushNotificationSender ?? new DefaultPushNotificationSender(pushStore));
    const executor = new AskUserA2AExecutor(options, options.taskStore, sender);
    super(options.agentCard, options.taskStore, executor, undefined, pushStore, sender);
    this.askUser = executor;
    this.store = options.taskStore;
    this.questionsClient = options.questions;
  }

  override async cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    const task = await this.store.load(params.id, context);
    const questionId =
      task?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED
        ? questionIdOf(task.status.message)
        : undefined;
    if (questionId !== undefined) {
      await this.questionsClient.client.workflow
        .getHandle(questionId)
        .cancel()
        .catch((error: unknown) => {
          // A question already gone has nothing left to withdraw.
          if (!(error instanceof WorkflowNotFoundError)) throw error;
        });
    }
    const cancelled = await super.cancelTask(params, context);
    this.askUser.forget(params.id);
    return cancelled;
  }
}
