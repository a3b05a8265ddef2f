/**
 * One agent process of the fleet part (`fleet-pending.ts`): the `ask_user_question` tool over
 * `TemporalUserInteraction`, as `waiting-agent.ts` asks, with two differences a fleet needs:
 *
 * - each process is its own agent (`fleet-agent-<n>`), as the agents of a fleet are;
 * - a question counts as started once its workflow exists, also when the provider's start was sent again after
 *   a transient failure and found it already started (the provider then re-attaches to it). Under load a start
 *   can time out after the server recorded it; `StartNotices` sees successful starts only, so such a question
 *   would count as started only once answered, and the ask never finishes.
 *
 *   fleet-agent.ts <index> <server address> <task queue>
 *
 * IPC as `waiting-agent.ts` (its `AgentMessage`): `ask` → `asked`, `counts` → `counts`, `settled` once every
 * ask has settled, `stop`.
 */
import {
  Client,
  WorkflowExecutionAlreadyStartedError,
  type WorkflowClientInterceptor,
} from '@temporalio/client';

import { TemporalUserInteraction, createAskUserQuestionTool } from '../src';
import { CallCounter, countedConnection } from './grpc-calls';
import type { AgentMessage } from './waiting-agent';
import { benchArgs, expectedText } from './workloads';

const STARTS_IN_FLIGHT = 64;

function send(message: AgentMessage): void {
  process.send?.(message);
}

function reasonOf(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return (typeof code === 'string' ? `${code}: ${message}` : message).replace(/\d+/g, 'N').slice(0, 200);
}

/** Workflow ids by tool call id, once the server holds the question (started now, or found started). */
class Starts {
  private readonly waiting = new Map<string, (workflowId: string) => void>();
  private readonly known = new Map<string, string>();

  readonly interceptor: WorkflowClientInterceptor = {
    startWithDetails: async (input, next) => {
      const toolCallId = (input.options.args?.[0] as { toolCallId?: unknown } | undefined)?.toolCallId;
      try {
        const output = await next(input);
        if (typeof toolCallId === 'string') this.record(toolCallId, input.options.workflowId);
        return output;
      } catch (error) {
        // An earlier attempt of the same start was recorded: the question exists, and the provider re-attaches.
        if (error instanceof WorkflowExecutionAlreadyStartedError && typeof toolCallId === 'string')
          this.record(toolCallId, input.options.workflowId);
        throw error;
      }
    },
  };

  private record(toolCallId: string, workflowId: string): void {
    this.known.set(toolCallId, workflowId);
    this.waiting.get(toolCallId)?.(workflowId);
    this.waiting.delete(toolCallId);
  }

  /** The workflow id once started; rejects if the ask settles first without its question existing. */
  async started(toolCallId: string, settled: Promise<unknown>): Promise<string> {
    const known = this.known.get(toolCallId);
    if (known !== undefined) return known;
    const failed = settled.then(
      () => {
        throw new Error(`${toolCallId}: the ask resolved before its question was started`);
      },
      (error: unknown) => {
        throw error;
      },
    );
    failed.catch(() => undefined);
    return await Promise.race([
      new Promise<string>((resolve) => this.waiting.set(toolCallId, resolve)),
      failed,
    ]);
  }
}

async function main(): Promise<void> {
  const [index = '', address = '', taskQueue = ''] = process.argv.slice(2);
  if (!/^\d+$/.test(index) || address === '' || taskQueue === '')
    throw new Error('usage: fleet-agent.ts <index> <address> <task queue>');
  const counter = new CallCounter();
  const connection = await countedConnection(counter, { address });
  const starts = new Starts();
  const client = new Client({
    connection,
    namespace: 'default',
    interceptors: { workflow: [starts.interceptor] },
  });
  const provider = new TemporalUserInteraction({ client, taskQueue });
  const tool = createAskUserQuestionTool({ userInteraction: provider });
  const agent = { id: `fleet-agent-${index}`, sessionId: `fleet-${index}` };

  let asked = 0;
  let settledCount = 0;
  let correct = 0;
  let wrong = 0;
  const wrongSamples: string[] = [];
  const failures: Record<string, number> = {};
  const settleOne = (): void => {
    settledCount += 1;
    if (settledCount === asked)
      send({ type: 'settled', settledAt: Date.now(), correct, wrong, wrongSamples, failures });
  };

  const ask = async (keys: readonly string[]): Promise<void> => {
    const startedAt = performance.now();
    const workflowIds: string[] = new Array<string>(keys.length).fill('');
    const startFailures: Record<string, number> = {};
    asked += keys.length;
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < keys.length) {
        const position = next;
        next += 1;
        const key = keys[position]!;
        const received = tool.execute(benchArgs, { toolCallId: key, agent });
        received
          .then(
            (text) => {
              if (text === expectedText(key)) correct += 1;
              else {
                wrong += 1;
                if (wrongSamples.length < 10) wrongSamples.push(`${key} received ${text.slice(0, 120)}`);
              }
            },
            (error: unknown) => {
              const reason = reasonOf(error);
              failures[reason] = (failures[reason] ?? 0) + 1;
            },
          )
          .finally(settleOne)
          .catch(() => undefined);
        try {
          workflowIds[position] = await starts.started(key, received);
        } catch (error) {
          const reason = reasonOf(error);
          startFailures[reason] = (startFailures[reason] ?? 0) + 1;
        }
      }
    };
    await Promise.all(Array.from({ length: STARTS_IN_FLIGHT }, lane));
    send({ type: 'asked', workflowIds, startMs: performance.now() - startedAt, startFailures });
  };

  await new Promise<void>((resolve, reject) => {
    process.on('message', (message: { type?: string; keys?: string[] }) => {
      if (message.type === 'ask') ask(message.keys ?? []).catch(reject);
      else if (message.type === 'counts') send({ type: 'counts', calls: counter.read() });
      else if (message.type === 'stop') resolve();
    });
    process.on('disconnect', () => resolve());
    send({ type: 'ready' });
  });
  await provider.close();
  await connection.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`fleet agent failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
