/**
 * What the question as an MCP task costs (protocol 2026-07-28, the Tasks extension), on a fresh dev server with
 * the `ours` worker (built: `npm run build` first):
 *
 * - latency at c=1: from an answer given through `QuestionClient` (the surface of the CLI and the inbox, on a
 *   connection of its own) to the settled result of a modern client (the v2 SDK's `Client` with ext-tasks' task
 *   session) polling `serveMcpOverHttp` over loopback HTTP, against the same answer reaching a direct
 *   `TemporalUserInteraction.ask()`. Client, MCP server and answerer share this process (and the worker and the
 *   server have their own), so that the server's Temporal calls can be counted on its connection. A task's result arrives with the next poll, so its latency
 *   is about half the poll interval the server suggests (`--progress-interval`, 1 s here; 5 s by default);
 * - the Temporal calls one `tasks/get` costs, pending and once answered, counted on the connection of a server
 *   run in this process.
 *
 * A part of `npm run bench` (`--skip mcp-tasks` leaves it out), or on its own:
 *
 *   npx tsx bench/mcp-tasks.ts                  # 20 rounds, polls every second
 *   npx tsx bench/mcp-tasks.ts --rounds 50 --poll 5
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { Client } from '@temporalio/client';

import { createAskUserMcpServer, serveMcpOverHttp } from '../src/mcp';
import { mcpQuestionOperations } from '../src/mcp/mcp-temporal-operations';
import { QuestionClient } from '../src/ops';
import { TemporalUserInteraction } from '../src/provider';
import { connectTaskClient, postRequest, type TaskClient } from '../test/helpers/mcp-task-client';
import { CallCounter, countedConnection, diffCounts, type CallCounts } from './grpc-calls';
import { formatMs, formatTable, median, percentile } from './measure';
import { forkScript, nextMessage, stopChild } from './processes';
import { startBenchServer, type ServerKind } from './servers';

const QUESTIONS = [{ id: 'deploy', question: 'Deploy now?', options: [{ label: 'Yes' }, { label: 'No' }] }];
const ANSWER = { answers: [{ id: 'deploy', selected: ['Yes'] }], answeredBy: 'bench' };

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(name);
  return index === -1 ? fallback : Number(process.argv[index + 1]);
}

/** Waits until the question exists and is pending. */
async function pending(questions: QuestionClient, workflowId: string): Promise<void> {
  for (;;) {
    try {
      if ((await questions.get(workflowId)).status === 'pending') return;
    } catch {
      // not started yet
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * The person answers at a random moment within one poll interval: a task's result comes with the next poll, so
 * an answer given right after the ask would always wait a whole interval.
 */
async function humanDelay(pollMs: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, Math.random() * pollMs));
}

/** Answer to settled result of one task, in ms. */
async function taskRound(taskClient: TaskClient, questions: QuestionClient, pollMs: number): Promise<number> {
  const execution = await taskClient.session.callTool('ask_user_question', { questions: QUESTIONS });
  if (execution.kind !== 'task') throw new Error('the server returned no task');
  const taskId: string = execution.handle.taskId;
  await pending(questions, taskId);
  const settled = execution.settle();
  await humanDelay(pollMs);
  await questions.answer(taskId, ANSWER);
  const answeredAt = performance.now();
  const { outcome } = await settled;
  if (outcome.status !== 'completed') throw new Error(`the task ended ${outcome.status}`);
  return performance.now() - answeredAt;
}

/** Answer to `ask()` resolved, in ms. */
async function directRound(
  provider: TemporalUserInteraction,
  questions: QuestionClient,
  n: number,
  pollMs: number,
): Promise<number> {
  const toolCallId = `direct-${process.pid}-${n}`;
  const asked = provider.ask({ questions: QUESTIONS, toolCallId, agent: { id: 'bench' } });
  const workflowId = `ask-user-question/bench/${toolCallId}`;
  await pending(questions, workflowId);
  await humanDelay(pollMs);
  await questions.answer(workflowId, ANSWER);
  const answeredAt = performance.now();
  await asked;
  return performance.now() - answeredAt;
}

/** The Temporal calls of one `tasks/get` of `taskId`, counted on the server's own connection. */
async function getCost(url: URL, counter: CallCounter, taskId: string): Promise<CallCounts> {
  const before = counter.read();
  const response = await postRequest(url, {
    method: 'tasks/get',
    params: {
      taskId,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
      },
    },
  });
  if (response.kind !== 'result') throw new Error(JSON.stringify(response));
  return diffCounts(before, counter.read());
}

function callsText(counts: CallCounts): string {
  const methods = Object.entries(counts.byMethod).map(([method, calls]) => `${calls} ${method}`);
  return `${counts.total} (${methods.join(', ')})`;
}

/** Settings of {@link runMcpTasks}. */
export interface McpTasksSettings {
  rounds: number;
  pollSeconds: number;
  server: ServerKind;
}

/** Runs the MCP task part on a server of its own; returns its section of the report. */
export async function runMcpTasks(settings: McpTasksSettings): Promise<string> {
  const { rounds, pollSeconds } = settings;
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-mcp-'));
  const server = await startBenchServer(settings.server, directory, 'mcp-tasks');
  const taskQueue = `bench-mcp-${process.pid}`;
  const worker = forkScript(
    path.join(__dirname, 'worker-process.js'),
    ['ours', server.address, taskQueue],
    'worker',
  );
  const counter = new CallCounter();
  const stops: (() => Promise<unknown>)[] = [];
  try {
    await nextMessage(worker, 'ready', 120_000);
    const client = new Client({
      connection: await countedConnection(new CallCounter(), { address: server.address }),
    });
    const questions = new QuestionClient(client);
    const provider = new TemporalUserInteraction({ client, taskQueue });
    stops.push(() => provider.close());

    // The MCP server: its own connection, counted.
    const serverClient = new Client({
      connection: await countedConnection(counter, { address: server.address }),
    });
    const userInteraction = new TemporalUserInteraction({ client: serverClient, taskQueue });
    stops.push(() => userInteraction.close());
    const endpoint = await serveMcpOverHttp({
      port: 0,
      createServer: () =>
        createAskUserMcpServer({
          userInteraction,
          progressIntervalMs: pollSeconds * 1000,
          tasks: mcpQuestionOperations(() => Promise.resolve(serverClient)),
        }),
    });
    stops.push(() => endpoint.close());
    const url = new URL(endpoint.url);
    const taskClient = await connectTaskClient(url, { name: 'bench' });
    stops.push(() => taskClient.close());

    const task: number[] = [];
    const direct: number[] = [];
    const pollMs = pollSeconds * 1000;
    await taskRound(taskClient, questions, pollMs); // warm-up
    await directRound(provider, questions, -1, pollMs);
    for (let round = 0; round < rounds; round += 1) {
      task.push(await taskRound(taskClient, questions, pollMs));
      direct.push(await directRound(provider, questions, round, pollMs));
    }

    // One more task for the cost of a poll: pending, then answered.
    const execution = await taskClient.session.callTool('ask_user_question', { questions: QUESTIONS });
    if (execution.kind !== 'task') throw new Error('the server returned no task');
    const taskId: string = execution.handle.taskId;
    await pending(questions, taskId);
    await execution.detach();
    const pendingCounts: CallCounts[] = [];
    for (let poll = 0; poll < 3; poll += 1) pendingCounts.push(await getCost(url, counter, taskId));
    await questions.answer(taskId, ANSWER);
    const answeredCounts: CallCounts[] = [];
    for (let poll = 0; poll < 3; poll += 1) answeredCounts.push(await getCost(url, counter, taskId));

    const row = (label: string, values: number[]): string[] => [
      label,
      formatMs(percentile(values, 0.5)),
      formatMs(percentile(values, 0.99)),
      formatMs(median(values)),
    ];
    return (
      `## The question as an MCP task\n\n` +
      `Answer to settled result, c=1, ${rounds} rounds, polls every ${pollSeconds} s:\n\n` +
      formatTable(
        ['', 'p50', 'p99', 'median'],
        [row('MCP task (tasks/get polling)', task), row('TemporalUserInteraction.ask()', direct)],
      ) +
      `\n\nTemporal calls of one tasks/get (three each):\n` +
      `- pending: ${pendingCounts.map(callsText).join('; ')}\n` +
      `- answered: ${answeredCounts.map(callsText).join('; ')}\n`
    );
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    await stopChild(worker);
    await server.stop();
    await fs.rm(directory, { recursive: true, force: true });
  }
}

if (require.main === module) {
  runMcpTasks({ rounds: option('--rounds', 20), pollSeconds: option('--poll', 1), server: 'dev' }).then(
    (section) => process.stdout.write(`\n${section}`),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
