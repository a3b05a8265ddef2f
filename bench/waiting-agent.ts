/**
 * An agent process that holds many questions pending at once, for the cost of waiting: its CPU time, memory
 * and gRPC calls are its own. Started by `waiting.ts` with `fork`:
 *
 *   waiting-agent.ts <ours|floor> <server address> <task queue>
 *
 * `ours` asks through the `ask_user_question` tool over `TemporalUserInteraction`; `floor` starts the bare
 * signal workflow and waits on `handle.result()`, the cheapest wait the SDK offers. Over IPC:
 *
 * - `{ type: 'ask', keys }`: asks one question per key, at most {@link STARTS_IN_FLIGHT} starts at a time, and
 *   replies `asked` with every question's workflow id once all have started; several batches may follow;
 * - `{ type: 'counts' }`: replies `counts` with the gRPC calls made so far;
 * - when every ask of every batch has settled, it sends `settled`: how many received exactly their own answer,
 *   and why the others failed;
 * - `{ type: 'stop' }`: closes its connection and exits.
 */
import { Client } from '@temporalio/client';

import { TemporalUserInteraction, createAskUserQuestionTool } from '../src';
import { floorSignalWorkflow } from './floor-workflows';
import { CallCounter, countedConnection, type CallCounts } from './grpc-calls';
import { BENCH_AGENT, StartNotices, benchArgs, expectedText } from './workloads';

/** How many questions may be starting at once: an agent asking thousands ramps up rather than floods. */
const STARTS_IN_FLIGHT = 64;

/** Messages the agent sends. */
export type AgentMessage =
  | { type: 'ready' }
  | { type: 'asked'; workflowIds: string[]; startMs: number; startFailures: Record<string, number> }
  | { type: 'counts'; calls: CallCounts }
  | {
      type: 'settled';
      settledAt: number;
      correct: number;
      /** Asks that received someone else's answer, and the first few of them. */
      wrong: number;
      wrongSamples: string[];
      failures: Record<string, number>;
    };

function send(message: AgentMessage): void {
  process.send?.(message);
}

/** A failure as a short, countable reason: its code when it has one, numbers blanked. */
function reasonOf(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  const reason = typeof code === 'string' ? `${code}: ${message}` : message;
  return reason.replace(/\d+/g, 'N').slice(0, 200);
}

/** One question being asked: resolves with the workflow id once started, and settles with what was received. */
interface Asking {
  started: Promise<string>;
  received: Promise<string>;
}

async function main(): Promise<void> {
  const [kind = '', address = '', taskQueue = ''] = process.argv.slice(2);
  if (kind !== 'ours' && kind !== 'floor')
    throw new Error(`agent kind must be "ours" or "floor", received ${JSON.stringify(kind)}`);
  const counter = new CallCounter();
  const connection = await countedConnection(counter, { address });
  const starts = new StartNotices();
  const client = new Client({
    connection,
    namespace: 'default',
    interceptors: { workflow: [starts.interceptor] },
  });
  const provider = new TemporalUserInteraction({ client, taskQueue });
  const tool = createAskUserQuestionTool({ userInteraction: provider });

  const askOurs = (key: string): Asking => {
    const received = tool.execute(benchArgs, { toolCallId: key, agent: BENCH_AGENT });
    received.catch(() => undefined);
    const started = starts.started(key, received);
    started.catch(() => undefined);
    return { started, received };
  };
  const askFloor = (key: string): Asking => {
    const workflowId = `bench-waiting-floor/${key}`;
    const handle = client.workflow.start(floorSignalWorkflow, {
      workflowId,
      taskQueue,
      args: [{ questions: benchArgs.questions }],
    });
    const received = handle.then(async (started) => {
      const result = (await started.result()) as { answers?: unknown };
      return JSON.stringify({ answers: result.answers });
    });
    received.catch(() => undefined);
    return { started: handle.then(() => workflowId), received };
  };

  // Totals over every batch: `settled` goes out once every question asked so far has settled.
  let asked = 0;
  let settledCount = 0;
  let correct = 0;
  let wrong = 0;
  const wrongSamples: string[] = [];
  const failures: Record<string, number> = {};
  const settleOne = (): void => {
    settledCount += 1;
    if (settledCount === asked) {
      send({ type: 'settled', settledAt: Date.now(), correct, wrong, wrongSamples, failures });
    }
  };

  const ask = async (keys: readonly string[]): Promise<void> => {
    const startedAt = performance.now();
    const workflowIds: string[] = new Array<string>(keys.length).fill('');
    const startFailures: Record<string, number> = {};
    asked += keys.length;
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < keys.length) {
        const index = next;
        next += 1;
        const key = keys[index]!;
        const asking = kind === 'ours' ? askOurs(key) : askFloor(key);
        asking.received
          .then(
            (text) => {
              if (text === expectedText(key)) {
                correct += 1;
                return;
              }
              wrong += 1;
              if (wrongSamples.length < 10) wrongSamples.push(`${key} received ${text.slice(0, 120)}`);
            },
            (error: unknown) => {
              const reason = reasonOf(error);
              failures[reason] = (failures[reason] ?? 0) + 1;
            },
          )
          .finally(settleOne)
          .catch(() => undefined);
        try {
          workflowIds[index] = await asking.started;
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
      switch (message.type) {
        case 'ask':
          ask(message.keys ?? []).catch(reject);
          break;
        case 'counts':
          send({ type: 'counts', calls: counter.read() });
          break;
        case 'stop':
          resolve();
          break;
      }
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
    process.stderr.write(`bench agent failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
