/**
 * The A2A executor of an agent that asks through durable-ask-user: each A2A task runs the agent once (again
 * after a restart), its waits become `TASK_STATE_INPUT_REQUIRED`, and a client message on a waiting task is the
 * answer or decision, recorded through the question's validated update (`QuestionClient.answer` / `decide`).
 *
 * Who publishes what:
 * - Every stop of the run (a wait, the end) is published on the task's event bus when it is reached, so a
 *   blocking `SendMessage`, a stream and a `SubscribeToTask` all see it, whoever answered (the A2A client, the
 *   inbox, the CLI, Slack, MCP). It is also saved to the task store here, since a stop reached between
 *   requests has no request to save it; a request that drains the bus saves it again, which changes nothing
 *   (a status update with the same message is idempotent in the SDK's result manager). Push notifications go
 *   out here only for stops reached while no request runs for the task; a request's drain sends its own.
 * - A refused reply keeps the task waiting: a new input-required status opens with the reason, nothing is
 *   recorded. A reply to a question someone answered first is not refused: the task moves on with the answer
 *   that won, as every other surface's does.
 */
import {
  AgentEvent,
  DefaultExecutionEventBus,
  ResultManager,
  type AgentExecutor,
  type ExecutionEventBus,
  type PushNotificationSender,
  type RequestContext,
  type ServerCallContext,
  type TaskStore,
} from '@a2a-js/sdk/server';
import {
  Role,
  TaskState,
  type Message,
  type Task,
  type TaskStatus,
  type TaskStatusUpdateEvent,
} from '@a2a-js/sdk';
import { errorText } from '../common';
import type { QuestionClient } from '../ops/question-client';
import { startedRecord } from '../ops/started-record';
import type { AskUserAgent, UserInteraction } from '../types';
import { AgentRun, type RunStop } from './a2a-agent-run';
import { agentMessage, questionIdOf, textPart, waitingMessage } from './a2a-parts';
import { recordReply, type A2AAnswerer } from './a2a-replies';

/** What the agent gets for one A2A task. */
export interface A2AAgentTask {
  taskId: string;
  contextId: string;
  /** The message that started the task. */
  message: Message;
  /** Its text parts, joined. */
  text: string;
  /**
   * Ask through this (`createAskUserQuestionTool({ userInteraction })`, `requireApproval(tool, {
   * userInteraction })`): it keys each question by the task and the tool call id, and shows it to the client.
   */
  userInteraction: UserInteraction;
  /** The agent every question is asked as: `{ id: agentId, sessionId: taskId }`. */
  agent: AskUserAgent;
  /** Aborted when the A2A task is cancelled. */
  signal: AbortSignal;
}

/** Options of {@link AskUserA2AExecutor}. */
export interface AskUserA2AExecutorOptions {
  /** The agent's id: the first component of its questions' ids. */
  agentId: string;
  /** The durable provider the agent's questions go to (`TemporalUserInteraction`). */
  userInteraction: UserInteraction;
  /** The answering side: a client's reply is recorded through it. */
  questions: QuestionClient;
  /**
   * Runs the agent for a task and returns its final text. It runs again for a task whose process was restarted
   * while it waited, and must then reach the same tool calls with the same ids (as any agent that re-attaches
   * to its questions): keep the conversation by task id, or make it a function of the task's first message.
   */
  run(task: A2AAgentTask): Promise<string>;
  /** The name (and groups) an answer from this A2A caller is recorded under. Default: the authenticated user's name. */
  answerer?(context: ServerCallContext): A2AAnswerer;
  /** Called with what could not be saved or pushed outside a request. Default: a process warning. */
  onError?(error: unknown): void;
}

/** One task's run and what is known of it in this process. */
interface TaskEntry {
  taskId: string;
  contextId: string;
  run: AgentRun;
  /** The bus of the task's latest request (the SDK keeps it while the task waits, for follow-ups and subscribers). */
  bus: ExecutionEventBus;
  context: ServerCallContext;
  /** How many requests run for the task now. */
  active: number;
  /** The last status published, re-published to a request that finds the run ended. */
  last?: TaskStatusUpdateEvent;
  /** A question the task already shows (from the store, after a restart): its replayed wait is not shown again. */
  shown?: string | undefined;
  cancelled: boolean;
}

const TERMINAL = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);

/** The text parts of a message, joined. */
function textOf(message: Message): string {
  return message.parts
    .flatMap((part) => (part.content?.$case === 'text' ? [part.content.value] : []))
    .join('\n');
}

/** See the file's comment. Serve it with {@link AskUserA2AHandler}, which also cancels questions. */
export class AskUserA2AExecutor implements AgentExecutor {
  private readonly tasks = new Map<string, TaskEntry>();

  constructor(
    private readonly options: AskUserA2AExecutorOptions,
    private readonly taskStore: TaskStore,
    private readonly pushNotificationSender?: PushNotificationSender,
  ) {}

  execute = async (request: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { taskId, contextId, task } = request;
    const existing = this.tasks.get(taskId);
    if (task === undefined || existing === undefined) {
      const first = task?.history.find((message) => message.messageId !== request.userMessage.messageId);
      bus.publish(
        AgentEvent.task({
          id: taskId,
          contextId,
          status: task?.status ?? {
            state: TaskState.TASK_STATE_SUBMITTED,
            message: undefined,
            timestamp: now(),
          },
          artifacts: [],
          history: task === undefined ? [request.userMessage] : [],
          metadata: {},
        }),
      );
      const entry = this.start(
        { taskId, contextId, context: request.context, bus },
        task === undefined ? request.userMessage : (first ?? request.userMessage),
        task === undefined ? undefined : questionIdOf(task.status?.message),
      );
      await this.serve(entry, request, task === undefined ? undefined : request.userMessage);
      return;
    }
    existing.bus = bus;
    existing.context = request.context;
    bus.publish(
      AgentEvent.task({
        id: taskId,
        contextId,
        status: existing.last?.status ?? task.status,
        artifacts: [],
        history: [],
        metadata: {},
      }),
    );
    await this.serve(existing, request, request.userMessage);
  };

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    const entry = this.tasks.get(taskId);
    if (entry !== undefined) {
      entry.bus = bus;
      this.stopRun(entry);
    }
    const contextId = entry?.contextId ?? '';
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: {
          state: TaskState.TASK_STATE_CANCELED,
          message: agentMessage(taskId, contextId, [
            textPart('The task was cancelled; its question was withdrawn.'),
          ]),
          timestamp: now(),
        },
        metadata: {},
      }),
    );
  };

  /** Stops the task's run, if this process runs it, and forgets it: the task was cancelled. */
  forget(taskId: string): void {
    const entry = this.tasks.get(taskId);
    if (entry !== undefined) this.stopRun(entry);
  }

  private stopRun(entry: TaskEntry): void {
    entry.cancelled = true;
    entry.run.stop();
    this.tasks.delete(entry.taskId);
  }

  /** Starts the agent's run for the task and publishes each of its stops. */
  /**
   * Runs the agent again for a task the store shows waiting for a question, when this process does not run it
   * yet (after a restart): an answer given anywhere then moves the task on, saved to the store and pushed,
   * without a message from its client. Returns whether it started a run.
   */
  resume(task: Task, context: ServerCallContext): boolean {
    const shown = questionIdOf(task.status?.message);
    const first = task.history.find((message) => message.role === Role.ROLE_USER);
    if (this.tasks.has(task.id) || shown === undefined || first === undefined) return false;
    // No request holds a bus for it yet; the first one to come takes the task over (see `execute`).
    const bus = new DefaultExecutionEventBus();
    this.start({ taskId: task.id, contextId: task.contextId, context, bus }, first, shown);
    return true;
  }

  /** Starts the agent's run for a task and publishes each of its stops but the wait the task already shows. */
  private start(
    where: Pick<TaskEntry, 'taskId' | 'contextId' | 'context' | 'bus'>,
    first: Message,
    shown: string | undefined,
  ): TaskEntry {
    const { taskId, contextId, context, bus } = where;
    const run = new AgentRun(
      this.options.agentId,
      taskId,
      this.options.userInteraction,
      (userInteraction, agent, signal) =>
        this.options.run({
          taskId,
          contextId,
          message: first,
          text: textOf(first),
          userInteraction,
          agent,
          signal,
        }),
      // Once the question can be read, or the read fails otherwise: the record then tells.
      (questionId, signal) =>
        startedRecord((id) => this.options.questions.get(id), questionId, signal).then(
          () => undefined,
          () => undefined,
        ),
    );
    const entry: TaskEntry = {
      taskId,
      contextId,
      run,
      bus,
      context,
      active: 0,
      cancelled: false,
      shown,
    };
    this.tasks.set(taskId, entry);
    run.onStop((stop) => {
      if (entry.cancelled) return;
      if (stop.kind === 'waiting' && stop.waiting.questionId === entry.shown) return;
      entry.shown = undefined;
      this.publish(entry, this.statusOf(entry, stop));
    });
    return entry;
  }

  /** Serves one request: records its reply, if any, and returns once the run has reached its next stop. */
  private async serve(entry: TaskEntry, request: RequestContext, reply: Message | undefined): Promise<void> {
    entry.active += 1;
    try {
      const stop = await entry.run.settled();
      if (reply === undefined) return;
      if (stop.kind !== 'waiting') {
        if (entry.last !== undefined) entry.bus.publish(AgentEvent.statusUpdate(entry.last));
        return;
      }
      const shown = questionIdOf(request.task?.status?.message);
      const answerer = this.options.answerer?.(request.context) ?? defaultAnswerer(request.context);
      const refusal =
        shown !== undefined && shown !== stop.waiting.questionId
          ? 'Your reply was for a question this task no longer waits for, and was not recorded.'
          : await recordReply(this.options.questions, stop.waiting, reply, answerer);
      if (refusal !== undefined) {
        this.publish(entry, this.waitingStatus(entry, stop, refusal));
        return;
      }
      await entry.run.after(stop.seq);
    } finally {
      entry.active -= 1;
    }
  }

  private statusOf(entry: TaskEntry, stop: RunStop): TaskStatusUpdateEvent {
    const { taskId, contextId } = entry;
    if (stop.kind === 'waiting') return this.waitingStatus(entry, stop);
    const [state, text] =
      stop.kind === 'done'
        ? [TaskState.TASK_STATE_COMPLETED, stop.text]
        : [TaskState.TASK_STATE_FAILED, `The agent failed: ${errorText(stop.error)}`];
    return statusEvent(taskId, contextId, {
      state,
      message: agentMessage(taskId, contextId, [textPart(text)]),
      timestamp: now(),
    });
  }

  private waitingStatus(
    entry: TaskEntry,
    stop: Extract<RunStop, { kind: 'waiting' }>,
    note?: string,
  ): TaskStatusUpdateEvent {
    const { taskId, contextId } = entry;
    return statusEvent(taskId, contextId, {
      state: TaskState.TASK_STATE_INPUT_REQUIRED,
      message: waitingMessage(taskId, contextId, stop.waiting, note),
      timestamp: now(),
    });
  }

  /** Publishes a status on the task's bus and saves it; see the file's comment. */
  private publish(entry: TaskEntry, event: TaskStatusUpdateEvent): void {
    entry.last = event;
    entry.bus.publish(AgentEvent.statusUpdate(event));
    const alone = entry.active === 0;
    const ended = TERMINAL.has(event.status!.state);
    if (ended) this.tasks.delete(entry.taskId);
    if (ended && alone) entry.bus.finished();
    void this.save(entry, event, alone).catch((error: unknown) => this.reportError(error));
  }

  private async save(entry: TaskEntry, event: TaskStatusUpdateEvent, push: boolean): Promise<void> {
    const results = new ResultManager(this.taskStore, entry.context);
    await results.processEvent(AgentEvent.statusUpdate(event));
    if (push && this.pushNotificationSender !== undefined) {
      const task = await this.taskStore.load(entry.taskId, entry.context);
      await this.pushNotificationSender.send(
        { payload: { $case: 'statusUpdate', value: event } },
        entry.context,
        task,
      );
    }
  }

  private reportError(error: unknown): void {
    if (this.options.onError !== undefined) this.options.onError(error);
    else process.emitWarning(`durable-ask-user a2a: ${errorText(error)}`);
  }
}

function now(): string {
  return new Date().toISOString();
}

function statusEvent(taskId: string, contextId: string, status: TaskStatus): TaskStatusUpdateEvent {
  return { taskId, contextId, status, metadata: {} };
}

function defaultAnswerer(context: ServerCallContext): A2AAnswerer {
  const user = context.user;
  return user?.isAuthenticated === true ? { name: user.userName } : {};
}
