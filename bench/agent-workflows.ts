/**
 * What waiting costs when the agent is itself a workflow: `examples/agent-workflow` (AI SDK 7 through
 * `@temporalio/ai-sdk`) and `examples/openai-agents-workflow` (the OpenAI Agents SDK through
 * `@temporalio/openai-agents`), each installed with the packed package, run N agent workflows on one agent
 * worker, each asking `ask_user_question` as a child workflow and waiting for the answer. The model is a stand-in
 * (the AI SDK's `MockProviderV4`, test/consumers/ai-sdk-7/agent-worker.ts; a scripted Agents SDK `Model`,
 * test/consumers/openai-agents/agent-worker.ts), so every figure is Temporal's, the framework's and ours.
 *
 * Once every question is pending and the agent worker has gone quiet, a window counts every call the agent
 * worker makes to the server (its own metrics, served for Prometheus: `temporal_request` and
 * `temporal_long_request` by operation) and reads the CPU time and memory of the agent worker, the ask-user
 * worker and the server from `/proc`. Then every question is answered and each agent's result is checked to
 * quote exactly its answer.
 *
 * AI SDK 7 needs Node 22.12 or later: the agent worker runs on the binary `scripts/ensure-node.js 24` gives
 * when the machine's Node is older.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { Client, Connection } from '@temporalio/client';

import { QuestionOperationError } from '../src/interaction/question-operation-error';
import { QuestionClient, type QuestionSummary } from '../src/ops';
import { PENDING_QUESTIONS_QUERY } from '../src/question/visibility-query';
import {
  AGENT_WORKFLOW_EXAMPLES,
  installAgentWorkflowConsumer,
  nodeRunsAiSdk7,
  type AgentWorkflowExample,
} from '../test/helpers/agent-workflow-consumer';
import { cpuShare, recordChild, sampleProcess, stopChild } from './processes';

const PROJECT_ROOT = path.resolve(__dirname, '..');
const AGENT_QUEUE = `bench-agents-${process.pid}`;
const ANSWER_TEXT = '{"answers":[{"id":"deploy","selected":["Yes (Recommended)"]}]}';
const IN_FLIGHT = 64;
/** How many times the pending questions are listed and answered again (see answerAll). */
const ANSWER_ROUNDS = 10;
/** How long an agent may take to finish once answered, before the bench reports it rather than wait on. */
const RESULT_WAIT_MS = 10 * 60_000;

/** Per example: its name in the tables, and the stand-in model that asks once and quotes the answer. */
const EXAMPLES: Record<AgentWorkflowExample, { label: string; model: string }> = {
  'ai-sdk': { label: 'AI SDK 7 (`@temporalio/ai-sdk`)', model: 'mock-deploy' },
  'openai-agents': { label: 'OpenAI Agents (`@temporalio/openai-agents`)', model: 'scripted-ask' },
};

/** How the part runs: one phase per cache size, each with a fresh agent worker and its own agents. */
export interface AgentWorkflowSettings {
  agents: number;
  /** Which examples run, each with every cache size. Default both. */
  examples?: AgentWorkflowExample[];
  /** The agent worker's `maxCachedWorkflows` in each phase; `undefined` is the SDK's default. */
  cacheSizes: (number | undefined)[];
  /** How long calls and CPU are counted while the agents wait. */
  windowSeconds: number;
}

/** Where it runs: a dev server of its own and an ask-user worker on it. */
export interface AgentWorkflowTarget {
  address: string;
  serverPid: number | undefined;
  askUserWorker: { pid: number | undefined; taskQueue: string };
}

/** What was measured in one phase. */
export interface AgentWorkflowFigures {
  example: AgentWorkflowExample;
  agents: number;
  node: string;
  /** The agent worker's `maxCachedWorkflows`; `undefined`: the SDK's default. */
  maxCachedWorkflows: number | undefined;
  /** Until every agent workflow was started, and until every question was running. */
  startSeconds: number;
  pendingSeconds: number;
  /** Until the agent worker went quiet after the last question started. */
  settleSeconds: number;
  window: {
    seconds: number;
    /** Calls by the agent worker, by operation. */
    calls: Record<string, number>;
    callsPerMinute: number;
    callsPerMinutePerAgent: number;
    /** Share of one core over the window. */
    cpu: { agentWorker: number; askUserWorker: number; server: number };
  };
  memory: {
    agentWorkerBefore?: number;
    agentWorkerHolding?: number;
    askUserWorker?: number;
    server?: number;
  };
  answer: { seconds: number; correct: number; failures: Record<string, number> };
}

/** Prepares the example project and runs each phase; throws with the reason when it cannot run. */
export async function runAgentWorkflows(
  directory: string,
  target: AgentWorkflowTarget,
  settings: AgentWorkflowSettings,
  freePort: () => Promise<number>,
  progress: (line: string) => void,
): Promise<AgentWorkflowFigures[]> {
  const node = nodeForAiSdk7();
  const figures: AgentWorkflowFigures[] = [];
  for (const example of settings.examples ??
    (Object.keys(AGENT_WORKFLOW_EXAMPLES) as AgentWorkflowExample[])) {
    const projectDirectory = path.join(directory, example);
    fs.mkdirSync(projectDirectory, { recursive: true });
    const consumer = installAgentWorkflowConsumer(projectDirectory, example);
    progress(`agent workflows: ${example} example installed; agent worker on Node ${node.version}`);
    for (const [phase, maxCachedWorkflows] of settings.cacheSizes.entries()) {
      const label = `${example} agent workflows, cache ${maxCachedWorkflows ?? 'SDK default'}`;
      figures.push(
        await runPhase(
          {
            example,
            node,
            consumer,
            target,
            settings,
            maxCachedWorkflows,
            prefix: `bench-agent-${process.pid}-${example}-${phase}-`,
          },
          `127.0.0.1:${await freePort()}`,
          (line) => progress(`${label}: ${line}`),
        ),
      );
    }
  }
  return figures;
}

interface Phase {
  example: AgentWorkflowExample;
  node: { path: string; version: string };
  consumer: string;
  target: AgentWorkflowTarget;
  settings: AgentWorkflowSettings;
  maxCachedWorkflows: number | undefined;
  /** Agent workflow ids start with it. */
  prefix: string;
}

async function runPhase(
  { example, node, consumer, target, settings, maxCachedWorkflows, prefix }: Phase,
  metricsAddress: string,
  progress: (line: string) => void,
): Promise<AgentWorkflowFigures> {
  const worker = await startAgentWorker(
    node.path,
    consumer,
    target.address,
    metricsAddress,
    maxCachedWorkflows,
  );
  const connection = await Connection.connect({ address: target.address });
  try {
    const client = new Client({ connection, namespace: 'default' });
    const questions = new QuestionClient(client);
    const agentWorkerBefore = sampleProcess(worker.pid)?.rss;

    const startedAt = performance.now();
    const ids = Array.from({ length: settings.agents }, (_, index) => `${prefix}${index}`);
    await inLanes(ids, async (workflowId) => {
      await client.workflow.start('deployAgentWorkflow', {
        workflowId,
        taskQueue: AGENT_QUEUE,
        args: [
          {
            prompt: 'Deploy build 1.4.2.',
            model: EXAMPLES[example].model,
            askUserTaskQueue: target.askUserWorker.taskQueue,
          },
        ],
      });
    });
    const startSeconds = (performance.now() - startedAt) / 1000;
    // 30 minutes: on a loaded machine, 1,000 first tasks of OpenAI Agents workflows took over 10.
    let lastCount = -1;
    await waitUntil(`${settings.agents} questions running`, 1_800_000, async () => {
      const { count } = await client.workflow.count(PENDING_QUESTIONS_QUERY);
      if (Math.floor(count / 100) !== Math.floor(lastCount / 100)) progress(`${count} questions running`);
      lastCount = count;
      return count >= settings.agents;
    });
    const pendingSeconds = (performance.now() - startedAt) / 1000;
    progress(`${settings.agents} agents waiting on their questions (${Math.round(pendingSeconds)} s)`);
    const settleSeconds = await settle(worker.pid);

    const callsBefore = await scrapeCalls(metricsAddress);
    const before = samples(worker.pid, target);
    const windowStart = performance.now();
    await new Promise((resolve) => setTimeout(resolve, settings.windowSeconds * 1000));
    const seconds = (performance.now() - windowStart) / 1000;
    const after = samples(worker.pid, target);
    const calls = diff(await scrapeCalls(metricsAddress), callsBefore);
    const total = Object.values(calls).reduce((sum, value) => sum + value, 0);
    progress(`${total} calls by the agent worker in the ${settings.windowSeconds} s window`);

    const answerStart = performance.now();
    const failures = await answerAll(questions, prefix);
    let correct = 0;
    const unfinished: string[] = [];
    await inLanes(ids, async (workflowId) => {
      const result = await resultWithin(client, workflowId, RESULT_WAIT_MS);
      if (result === undefined) unfinished.push(workflowId);
      else if (result.text === `The human said: ${ANSWER_TEXT}`) correct += 1;
    });
    if (unfinished.length > 0) {
      failures[`no result within ${RESULT_WAIT_MS / 60_000} min: ${unfinished.slice(0, 3).join(', ')}`] =
        unfinished.length;
    }
    const answerSeconds = (performance.now() - answerStart) / 1000;
    progress(`all answered, ${correct}/${settings.agents} agents read their own answer`);

    return {
      example,
      agents: settings.agents,
      node: node.version,
      maxCachedWorkflows,
      startSeconds,
      pendingSeconds,
      settleSeconds,
      window: {
        seconds,
        calls,
        callsPerMinute: (total * 60) / seconds,
        callsPerMinutePerAgent: (total * 60) / seconds / settings.agents,
        cpu: {
          agentWorker: cpuShare(before.agentWorker, after.agentWorker, seconds),
          askUserWorker: cpuShare(before.askUserWorker, after.askUserWorker, seconds),
          server: cpuShare(before.server, after.server, seconds),
        },
      },
      memory: {
        ...(agentWorkerBefore === undefined ? {} : { agentWorkerBefore }),
        ...(after.agentWorker === undefined ? {} : { agentWorkerHolding: after.agentWorker.rss }),
        ...(after.askUserWorker === undefined ? {} : { askUserWorker: after.askUserWorker.rss }),
        ...(after.server === undefined ? {} : { server: after.server.rss }),
      },
      answer: { seconds: answerSeconds, correct, failures },
    };
  } finally {
    await connection.close();
    await stopChild(worker, 15_000);
  }
}

/** The markdown table of the part: one row per phase. */
export function agentWorkflowsMarkdown(phases: AgentWorkflowFigures[]): string {
  const mib = (bytes: number | undefined): string =>
    bytes === undefined ? '—' : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  const percent = (share: number): string => `${(share * 100).toFixed(1)}%`;
  const count = (value: number): string => value.toLocaleString('en-US');
  const first = phases[0];
  if (first === undefined) return '### Agents that are workflows, waiting\n\nNo phase ran.';
  const rows = phases.map((figures) => {
    const calls = Object.entries(figures.window.calls)
      .filter(([, value]) => value > 0)
      .map(([operation, value]) => `${operation} ${count(value)}`)
      .join(', ');
    return (
      `| ${EXAMPLES[figures.example].label} | ${count(figures.agents)} | ${figures.maxCachedWorkflows === undefined ? 'SDK default' : count(figures.maxCachedWorkflows)} | ` +
      `${figures.startSeconds.toFixed(1)} s → ${figures.pendingSeconds.toFixed(1)} s | ` +
      `${figures.window.callsPerMinute.toFixed(1)} | ${figures.window.callsPerMinutePerAgent.toFixed(4)} | ${calls || 'none'} | ` +
      `${percent(figures.window.cpu.agentWorker)} | ${percent(figures.window.cpu.askUserWorker)} | ${percent(figures.window.cpu.server)} | ` +
      `${mib(figures.memory.agentWorkerBefore)} → ${mib(figures.memory.agentWorkerHolding)} | ${mib(figures.memory.askUserWorker)} | ` +
      `${figures.answer.seconds.toFixed(1)} s | ${count(figures.answer.correct)}/${count(figures.agents)} |`
    );
  });
  return [
    '### Agents that are workflows, waiting',
    '',
    `One agent worker (examples/agent-workflow or examples/openai-agents-workflow on Node ${first.node}, a ` +
      "stand-in model through the integration's plugin) holding agent workflows that each wait on their " +
      'question, a child workflow on the ask-user worker; a fresh worker and new agents per example and cache ' +
      `size. Calls are the agent worker's own (its metrics), over a ${Math.round(first.window.seconds)} s window.`,
    '',
    '| agent | agents waiting | agent worker cache | started → all asking | calls/min (all agents) | calls/min/agent | calls in the window | agent worker CPU | ask-user worker CPU | server CPU | agent worker RSS (idle → holding) | ask-user worker RSS | answered → all agents done | own answer read |',
    '| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
  ].join('\n');
}

/** This Node when it runs AI SDK 7, else the Node 24 that `scripts/ensure-node.js` installs. */
function nodeForAiSdk7(): { path: string; version: string } {
  if (nodeRunsAiSdk7()) return { path: process.execPath, version: process.versions.node };
  const ensured = spawnSync(process.execPath, [path.join(PROJECT_ROOT, 'scripts', 'ensure-node.js'), '24'], {
    encoding: 'utf8',
  });
  if (ensured.status !== 0) throw new Error(`no Node 24 for the agent worker: ${ensured.stderr.trim()}`);
  const binary = ensured.stdout.trim();
  const version = spawnSync(binary, ['--version'], { encoding: 'utf8' }).stdout.trim().replace(/^v/, '');
  return { path: binary, version };
}

/** Starts the agent worker in the example project and resolves once it polls. */
async function startAgentWorker(
  node: string,
  consumer: string,
  address: string,
  metricsAddress: string,
  maxCachedWorkflows: number | undefined,
): Promise<ChildProcess> {
  // `--import tsx` resolves from the working directory: the project's own tsx.
  const args = ['--import', 'tsx', 'src/agent-worker.ts', address, AGENT_QUEUE, metricsAddress];
  if (maxCachedWorkflows !== undefined) args.push(String(maxCachedWorkflows));
  const child = spawn(node, args, { cwd: consumer, stdio: ['ignore', 'pipe', 'inherit'] });
  recordChild(child);
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`the agent worker did not start: ${output}`)), 180_000);
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      output += chunk;
      if (output.includes('agent worker running')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the agent worker exited (code ${code}) before polling: ${output}`));
    });
  });
  return child;
}

/** Every pending question, page by page. */
/**
 * Answers every pending question of the run's agents, and the failures by reason. Under load the listing may
 * lag behind a start, and an answer may fail (a timeout), so the questions still pending are listed and answered
 * again, up to ANSWER_ROUNDS times; a question the listing still shows but a round already answered is refused
 * ALREADY_RESOLVED, which is not a failure.
 */
async function answerAll(questions: QuestionClient, prefix: string): Promise<Record<string, number>> {
  const failures: Record<string, number> = {};
  for (let round = 0; round < ANSWER_ROUNDS; round += 1) {
    // Between rounds, a moment for the listing to catch up with the answers just recorded.
    if (round > 0) await new Promise((resolve) => setTimeout(resolve, 2_000));
    const pending = (await allPending(questions)).filter((summary) => summary.agentId?.startsWith(prefix));
    if (pending.length === 0) return failures;
    await inLanes(pending, async (summary) => {
      try {
        await questions.answer(summary.workflowId, {
          answers: [{ id: 'deploy', selected: ['Yes (Recommended)'] }],
          answeredBy: 'bench-answerer',
        });
      } catch (error) {
        if (QuestionOperationError.isInstance(error) && error.code === 'ALREADY_RESOLVED') return;
        const reason = error instanceof Error ? error.message.slice(0, 120) : String(error);
        failures[reason] = (failures[reason] ?? 0) + 1;
      }
    });
  }
  return failures;
}

/** The agent workflow's result, or `undefined` when it has none within `timeoutMs`. */
async function resultWithin(
  client: Client,
  workflowId: string,
  timeoutMs: number,
): Promise<{ text?: string } | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>(
    (resolve) => (timer = setTimeout(() => resolve(undefined), timeoutMs)),
  );
  try {
    return await Promise.race([
      client.workflow.getHandle(workflowId).result() as Promise<{ text?: string }>,
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

async function allPending(questions: QuestionClient): Promise<QuestionSummary[]> {
  const all: QuestionSummary[] = [];
  let pageToken: string | undefined;
  do {
    const page = await questions.listPage({
      status: 'pending',
      pageSize: 1000,
      ...(pageToken === undefined ? {} : { pageToken }),
    });
    all.push(...page.questions);
    pageToken = page.nextPageToken;
  } while (pageToken !== undefined && pageToken !== '');
  return all;
}

/** The agent worker's calls so far, by operation: its counters `temporal_request` and `temporal_long_request`. */
async function scrapeCalls(metricsAddress: string): Promise<Record<string, number>> {
  const response = await fetch(`http://${metricsAddress}/metrics`);
  const text = await response.text();
  const calls: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const match = /^temporal_(?:long_)?request(?:_total)?\{([^}]*)\}\s+([0-9.e+]+)$/.exec(line);
    if (match === null) continue;
    const operation = /operation="([^"]+)"/.exec(match[1]!)?.[1] ?? 'unknown';
    calls[operation] = (calls[operation] ?? 0) + Number(match[2]);
  }
  return calls;
}

function diff(after: Record<string, number>, before: Record<string, number>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(after).map(([operation, count]) => [operation, count - (before[operation] ?? 0)]),
  );
}

function samples(agentWorkerPid: number | undefined, target: AgentWorkflowTarget) {
  return {
    agentWorker: sampleProcess(agentWorkerPid),
    askUserWorker: sampleProcess(target.askUserWorker.pid),
    server: sampleProcess(target.serverPid),
  };
}

/** Waits until the agent worker has used under 2 % of a core for 3 s in a row (at most 120 s); returns how long. */
async function settle(pid: number | undefined): Promise<number> {
  const startedAt = performance.now();
  let quiet = 0;
  let previous = sampleProcess(pid);
  while (quiet < 3 && performance.now() - startedAt < 120_000) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const current = sampleProcess(pid);
    quiet = cpuShare(previous, current, 1) < 0.02 ? quiet + 1 : 0;
    previous = current;
  }
  return (performance.now() - startedAt) / 1000;
}

/** Runs `each` over `items`, {@link IN_FLIGHT} at a time. */
async function inLanes<T>(items: readonly T[], each: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next]!;
      next += 1;
      await each(item);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
}

async function waitUntil(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}
