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
  ServerCallContext,
  type PushNotificationSender,
  type PushNotificationStore,
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

  /**
   * Runs again, in this process, the agent of every task the store shows waiting for a question, so that an
   * answer given anywhere (the inbox, the CLI, Slack, MCP) while no process ran the task moves it on without a
   * message from its client. Call it once at start, with the context of the tasks' owner when the store scopes
   * them by user. Returns how many tasks it took up.
   */
  async resumeWaitingTasks(context: ServerCallContext = new ServerCallContext()): Promise<number> {
    let resumed = 0;
    let pageToken = '';
    do {
      const page = await this.store.list(
        {
          tenant: context.tenant ?? '',
          contextId: '',
          status: TaskState.TASK_STATE_INPUT_REQUIRED,
          pageSize: 100,
          pageToken,
          statusTimestampAfter: undefined,
        },
        context,
      );
      for (const listed of page.tasks) {
        // A listing may leave the history out; the first message is what the agent runs on.
        const task = await this.store.load(listed.id, context);
        if (task !== undefined && this.askUser.resume(task, context)) resumed += 1;
      }
      pageToken = page.nextPageToken;
    } while (pageToken !== '');
    return resumed;
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
