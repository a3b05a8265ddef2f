/**
 * `npm run bench`: what durability costs, side by side. Every workload runs in one run on Temporal dev servers
 * with the same settings (SQLite file, WAL, those of `ask-user dev`): one for the comparison, whose workloads are
 * interleaved in rounds, then a fresh one for the cost of waiting, once the comparison's processes are stopped:
 *
 * - the floor (a bare workflow waiting on one signal or one update), ours (the tool over
 *   `TemporalUserInteraction`, answered through the update and through the signal), the in-memory provider,
 *   and the peers (LangGraph.js `interrupt()` with its SQLite checkpointer, Restate awakeables);
 * - latency p50/p95/p99 at c=1, throughput at c=16 and c=64, history per question, gRPC calls per question by
 *   method, CPU per question by process;
 * - the cost of waiting: questions held pending by one agent process, its calls per minute per question, CPU
 *   and memory of agent, worker and server, the inbox's first page, the time to answer them all, none lost;
 * - agents that are workflows (`agents`, agent-workflows.ts): 1,000 agent workflows of examples/agent-workflow
 *   (AI SDK 7) and of examples/openai-agents-workflow (`@temporalio/openai-agents`), on Node 22+, waiting on
 *   their questions on one agent worker: its calls per minute, CPU and memory;
 * - one question's long life (`long-life`, long-life.ts): 55,000 refused signals and 2,100 deadline extensions,
 *   then an answer, across the runs it continues as new into: history bytes per question and per event.
 * - standing grants (`grants`, grants.ts): an approval a grant covers, no human step, against the floor, beside a
 *   question and an approval a person decides, in rounds on a dev server of its own.
 *
 *   npm run bench                      # the full run: 1,000 and 10,000 pending (11–16 minutes on 2 shared cores)
 *   npm run bench -- --quick           # about two minutes: 2 short rounds, 100 pending questions
 *   npm run bench -- --quick --skip peers,waiting
 *   npm run bench -- --quick --tool    # also the tool layer alone (no Temporal), about 20 s more
 *   npm run bench -- --quick --cpu-prof  # CPU profiles of the workers, agents and the bench process's phases; see profile-summary.ts
 *   npm run bench -- --rounds 10 --skip peers,waiting,agents  # more rounds of the comparison, steadier ratios
 *   npm run bench -- --only comparison --partitions 1  # the comparison on one task queue partition (docs/benchmarks.md)
 *   npm run bench -- --only comparison --seed 1234  # the comparison's workloads in the orders of an earlier run
 *   npm run bench -- --only comparison --rounds 10 --workloads floor-update,ours-update,floor-update-again
 *                                      # some of the comparison's workloads (each with its floor), more rounds
 *   npm run bench -- --server postgres  # every part on the Temporal server on PostgreSQL (npm run cluster's)
 *   npm run bench -- --skip comparison,peers,waiting,agents  # the long life alone (about 5 minutes)
 *   npm run bench -- --server postgres --only fleet --fleet 100000 --fleet-agents 4  # a fleet's pending questions
 *   npm run bench -- --only agents --agent-example openai-agents --agent-cache 100  # one kind of agent workflow
 *
 * Figures go to stdout and to bench/results/: latest.md and latest.json (with dated copies) from a full run,
 * quick.md and quick.json from a quick one, partial-<date>.md and .json (and partial.md, .json) from a full run
 * with `--skip` or `--rounds`; on PostgreSQL the same names prefixed `postgres-`. The long life also goes to
 * long-life.md and long-life.json, with dated copies (not from a quick run).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { measureToolSchema } from '../scripts/print-schema';
import { runComparison, type ComparisonResult, type ComparisonSettings } from './comparison';
import { newSeed } from './order';
import { ownPhaseProfiler } from './own-profile';
import { describeMachine, formatMs, formatNumber } from './measure';
import {
  forkScript,
  nextMessage,
  profileChildren,
  stopChild,
  freePort,
  type WorkerMessage,
} from './processes';
import {
  answersTable,
  callsTable,
  commit,
  comparisonNotes,
  comparisonTable,
  cpuTable,
  machine,
  saveResults,
  pendingReadsTable,
  versions,
  waitingNotes,
  waitingTable,
} from './report';
import { langGraphWorkload, restateWorkload } from './peers';
import { runWaiting, type WaitingFigures, type WaitingSettings } from './waiting';
import { runToolLayerBench } from './tool-layer';
import { agentWorkflowsMarkdown, runAgentWorkflows, type AgentWorkflowSettings } from './agent-workflows';
import { AGENT_WORKFLOW_EXAMPLES, type AgentWorkflowExample } from '../test/helpers/agent-workflow-consumer';
import { SERVER_KINDS, startBenchServer, type BenchServerOptions, type ServerKind } from './servers';
import { FULL_LONG_LIFE, QUICK_LONG_LIFE, longLifeMarkdown, runLongLife } from './long-life';
import { runMcpTasks } from './mcp-tasks';
import { runAuditExport } from './audit-export';
import { grantWorkload } from './grants';
import { actionsTable, runBillableActions } from './actions';
import { runFleetPending } from './fleet-pending';
import { fleetMarkdown } from './fleet-report';
import {
  approvalWorkload,
  floorWorkload,
  inMemoryWorkload,
  oursWorkload,
  type DoubleAnswerFinding,
  type TemporalTarget,
  type Workload,
} from './workloads';

const PARTS = [
  'comparison',
  'actions',
  'peers',
  'waiting',
  'agents',
  'long-life',
  'mcp-tasks',
  'audit-export',
  'grants',
] as const;
type Part = (typeof PARTS)[number];
/** Runs only when named (`--only fleet`, or `--fleet N`): 100,000 pending questions take about 90 minutes on two cores. */
const FLEET = 'fleet';

interface Options {
  quick: boolean;
  /** Also run the tool-layer micro-benchmark (no Temporal). */
  tool: boolean;
  /**
   * Profile the worker and agent processes, and the bench process through each workload's throughput phases
   * (`--cpu-prof`), into a temporary directory.
   */
  cpuProfile: boolean;
  skip: Set<Part>;
  /** Rounds of the comparison, when not the mode's own. */
  rounds?: number;
  /** The Temporal server every part runs on. */
  server: ServerKind;
  /** Task queue partitions of the comparison's dev server (`--partitions`), when not the server's default. */
  partitions?: number;
  /** The seed of the comparison's orders (`--seed`, printed by every run), when not a new one. */
  seed?: number;
  /** The comparison's workloads by slug of their names (`--workloads`), when not all of them. */
  workloads?: string[];
  /** The fleet part: its questions and agent processes, when it runs. */
  fleet?: { questions: number; agents: number; floorQuestions?: number };
  /** The agents part narrowed to one example and one cache size (`--agent-example`, `--agent-cache`). */
  agents?: { example?: AgentWorkflowExample; cacheSize?: number };
}

function wholeNumber(flag: string, value: string): number {
  if (!/^[1-9]\d*$/.test(value))
    throw new Error(`${flag}: must be a whole number, received ${JSON.stringify(value)}`);
  return Number(value);
}

function parseOptions(argv: readonly string[]): Options {
  const options: Options = { quick: false, tool: false, cpuProfile: false, skip: new Set(), server: 'dev' };
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index]!;
    if (arg === '--quick') options.quick = true;
    else if (arg === '--tool') options.tool = true;
    else if (arg === '--cpu-prof') options.cpuProfile = true;
    else if (arg === '--rounds') {
      const value = argv[index + 1] ?? '';
      index += 1;
      if (!/^[1-9]\d*$/.test(value))
        throw new Error(`--rounds: must be a whole number of rounds, received ${JSON.stringify(value)}`);
      options.rounds = Number(value);
    } else if (arg === '--server') {
      const value = argv[index + 1] ?? '';
      index += 1;
      if (!(SERVER_KINDS as readonly string[]).includes(value))
        throw new Error(
          `--server: choose from ${SERVER_KINDS.join(', ')}, received ${JSON.stringify(value)}`,
        );
      options.server = value as ServerKind;
    } else if (arg === '--partitions') {
      options.partitions = wholeNumber(arg, argv[index + 1] ?? '');
      index += 1;
    } else if (arg === '--workloads') {
      options.workloads = (argv[index + 1] ?? '').split(',').filter((slug) => slug !== '');
      index += 1;
    } else if (arg === '--seed') {
      options.seed = wholeNumber(arg, argv[index + 1] ?? '');
      index += 1;
    } else if (arg === '--only') {
      const named = (argv[index + 1] ?? '').split(',');
      index += 1;
      for (const part of named) {
        if (part !== FLEET && !(PARTS as readonly string[]).includes(part))
          throw new Error(
            `--only: unknown part ${JSON.stringify(part)}; choose from ${[...PARTS, FLEET].join(', ')}`,
          );
      }
      for (const part of PARTS) if (!named.includes(part)) options.skip.add(part);
      if (named.includes(FLEET)) options.fleet ??= { questions: 0, agents: 4 };
    } else if (arg === '--fleet' || arg === '--fleet-agents' || arg === '--fleet-floor') {
      const value =
        arg === '--fleet-floor' && argv[index + 1] === '0' ? 0 : wholeNumber(arg, argv[index + 1] ?? '');
      index += 1;
      options.fleet ??= { questions: 0, agents: 4 };
      if (arg === '--fleet') options.fleet.questions = value;
      else if (arg === '--fleet-agents') options.fleet.agents = value;
      else options.fleet.floorQuestions = value;
    } else if (arg === '--agent-example') {
      const value = argv[index + 1] ?? '';
      index += 1;
      if (!Object.hasOwn(AGENT_WORKFLOW_EXAMPLES, value)) {
        const known = Object.keys(AGENT_WORKFLOW_EXAMPLES).join(', ');
        throw new Error(`--agent-example: unknown example ${JSON.stringify(value)}; choose from ${known}`);
      }
      options.agents = { ...options.agents, example: value as AgentWorkflowExample };
    } else if (arg === '--agent-cache') {
      options.agents = { ...options.agents, cacheSize: wholeNumber(arg, argv[index + 1] ?? '') };
      index += 1;
    } else if (arg === '--skip') {
      const value = argv[index + 1];
      index += 1;
      for (const part of (value ?? '').split(',')) {
        if (!(PARTS as readonly string[]).includes(part)) {
          throw new Error(`--skip: unknown part ${JSON.stringify(part)}; choose from ${PARTS.join(', ')}`);
        }
        options.skip.add(part as Part);
      }
    } else
      throw new Error(
        `unknown option ${JSON.stringify(arg)}: use --quick, --tool, --cpu-prof, --rounds N, --server dev|postgres, --partitions N, --skip ${PARTS.join(',')}, --only <parts>, --fleet N, --fleet-agents N, --fleet-floor N, --agent-example NAME and --agent-cache N`,
      );
  }
  if (options.partitions !== undefined && options.server !== 'dev')
    throw new Error('--partitions: the dev server only (the cluster takes its dynamic config from its file)');
  // The fleet's size, unless given: 100,000 questions, 2,000 in a quick run.
  if (options.fleet !== undefined && options.fleet.questions === 0)
    options.fleet.questions = options.quick ? 2_000 : 100_000;
  return options;
}

const QUICK: Omit<ComparisonSettings, 'seed'> = {
  rounds: 2,
  sequentialQuestions: 5,
  throughput: [
    { concurrency: 16, questions: 32 },
    { concurrency: 64, questions: 64 },
  ],
  warmupQuestions: 4,
};

const FULL: Omit<ComparisonSettings, 'seed'> = {
  rounds: 3,
  // 225 asks at c=1 in all, so that p99 is a percentile and not the slowest of a few. Four rounds or 100 asks a
  // round steady the ratios a little, but take the full run further past 15 minutes in a slow hour of this shared
  // machine (949 s at these settings in the slowest so far).
  sequentialQuestions: 75,
  // A closed loop needs many times its concurrency to read a rate: at 64 and 128 questions (about 1 and 2 s) the
  // ramp up and down and the server's work left from the workload before moved a round by ±20 %, and the control
  // read 0.80-1.16x the floor at c=16 in one run. Twelve and eight times the concurrency take about 3 and 9 s a
  // phase on two cores.
  throughput: [
    { concurrency: 16, questions: 192 },
    { concurrency: 64, questions: 512 },
  ],
  warmupQuestions: 8,
};

const QUICK_WAITING: WaitingSettings = {
  phases: [
    { kind: 'floor', pending: [100] },
    { kind: 'ours', pending: [100] },
  ],
  windowSeconds: 20,
  answerConcurrency: 32,
};

const FULL_WAITING: WaitingSettings = {
  phases: [
    { kind: 'floor', pending: [1_000] },
    { kind: 'ours', pending: [1_000, 10_000] },
  ],
  // One of the server's 20 s long-poll intervals: every waiting `result()` is renewed once in it, so the floor's
  // rate is read in full, and the whole run stays under 15 minutes here (most of it is the server's CPU for the
  // 10,000 questions). Ours scans every 2 s; its sweep by id (every 60 s) falls in one window out of three.
  windowSeconds: 20,
  answerConcurrency: 64,
};

const QUICK_AGENTS: AgentWorkflowSettings = { agents: 50, cacheSizes: [undefined], windowSeconds: 20 };
// A full minute: the agent worker's long polls are renewed about once a minute each, so the window reads them.
// The SDK's default cache keeps every waiting agent in memory; a cache of 100 shows what evicting them saves.
const FULL_AGENTS: AgentWorkflowSettings = { agents: 1_000, cacheSizes: [undefined, 100], windowSeconds: 60 };

/** The agents part's settings, narrowed to one example or one cache size when the options name them. */
function narrowAgents(settings: AgentWorkflowSettings, narrow: Options['agents']): AgentWorkflowSettings {
  return {
    ...settings,
    ...(narrow?.example === undefined ? {} : { examples: [narrow.example] }),
    ...(narrow?.cacheSize === undefined ? {} : { cacheSizes: [narrow.cacheSize] }),
  };
}

/**
 * `npm run build`: the ours worker and `ask-user list` run from `dist/`, as a user runs the package, so `dist/`
 * must be the sources being measured.
 */
function buildPackage(): void {
  const startedAt = performance.now();
  const built = spawnSync('npm', ['run', 'build'], {
    cwd: path.join(__dirname, '..'),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (built.status !== 0) throw new Error(`npm run build failed (${built.signal ?? `exit ${built.status}`})`);
  process.stdout.write(`built dist/ in ${formatMs(performance.now() - startedAt)}\n`);
}

/** A workload's name as `--workloads` names it: `ours, update as sent` is `ours-update-as-sent`. */
function workloadSlug(workload: Workload): string {
  return workload.name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

/**
 * The workloads `slugs` name (all when none), in the comparison's order.
 *
 * @throws Error naming a slug that names no workload, or a workload chosen without the floor its ratios need
 */
function chooseWorkloads(workloads: readonly Workload[], slugs: readonly string[] | undefined): Workload[] {
  if (slugs === undefined) return [...workloads];
  const known = workloads.map(workloadSlug);
  const unknown = slugs.filter((slug) => !known.includes(slug));
  if (unknown.length > 0)
    throw new Error(`--workloads: no workload ${unknown.join(', ')}; choose from ${known.join(', ')}`);
  const chosen = workloads.filter((workload) => slugs.includes(workloadSlug(workload)));
  for (const workload of chosen) {
    const floor = workloads.find((candidate) => candidate.name === workload.floor);
    if (floor !== undefined && !chosen.includes(floor))
      throw new Error(`--workloads: ${workloadSlug(workload)} needs its floor, ${workloadSlug(floor)}`);
  }
  return chosen;
}

/** A worker child process and what it reported when ready. */
interface WorkerChild {
  pid: number | undefined;
  ready: WorkerMessage;
  stop(): Promise<void>;
}

async function startWorker(kind: 'ours' | 'floor', address: string, taskQueue: string): Promise<WorkerChild> {
  // Both workers run as the Docker image runs one, with two malloc arenas (README, "Worker memory").
  const child = forkScript(
    path.join(__dirname, 'worker-process.js'),
    [kind, address, taskQueue],
    `${kind}-worker`,
    {
      ...process.env,
      MALLOC_ARENA_MAX: '2',
    },
  );
  try {
    const ready = await nextMessage<WorkerMessage>(child, 'ready', 120_000);
    return { pid: child.pid, ready, stop: () => stopChild(child) };
  } catch (error) {
    await stopChild(child);
    throw error;
  }
}

/** A dev server with a floor and an ours worker on their own task queues. */
interface TemporalSetup {
  target: TemporalTarget;
  floorWorker: WorkerChild;
  oursWorker: WorkerChild;
  floorQueue: string;
  oursQueue: string;
}

/**
 * Starts a fresh server of the run's kind (`--server`: the dev server, or the cluster on PostgreSQL) under
 * `directory`, and both workers; `resources` stops them.
 */
async function startTemporal(
  server: ServerKind,
  directory: string,
  label: string,
  resources: Resources,
  serverOptions: BenchServerOptions = {},
): Promise<TemporalSetup> {
  const started = await startBenchServer(server, directory, label, serverOptions);
  resources.add(() => started.stop());
  const serverProcess = { address: started.address, pid: started.pid };
  const floorQueue = `bench-floor-${label}-${process.pid}`;
  const oursQueue = `bench-ours-${label}-${process.pid}`;
  const [floorWorker, oursWorker] = await Promise.all([
    startWorker('floor', serverProcess.address, floorQueue),
    startWorker('ours', serverProcess.address, oursQueue),
  ]);
  resources.add(() => floorWorker.stop());
  resources.add(() => oursWorker.stop());
  if (!oursWorker.ready.prebuilt)
    throw new Error('the ours worker bundled at start: dist/ has no prebuilt bundle');
  return {
    target: { address: serverProcess.address, serverPid: serverProcess.pid },
    floorWorker,
    oursWorker,
    floorQueue,
    oursQueue,
  };
}

/** Everything started for the run, stopped in reverse order at the end. */
class Resources {
  private readonly stops: (() => Promise<void>)[] = [];

  add(stop: () => Promise<void>): void {
    this.stops.push(stop);
  }

  /** Stops everything added so far, newest first; what is added afterwards waits for the next call. */
  async stopAll(): Promise<void> {
    for (const stop of this.stops.splice(0).reverse()) {
      try {
        await stop();
      } catch (error) {
        process.stderr.write(`bench: stopping failed: ${reasonOf(error)}\n`);
      }
    }
  }
}

function schemaLine(): string {
  const size = measureToolSchema();
  return (
    `Tool schema (what the model sees on every request): ${formatNumber(size.total.characters)} characters, ` +
    `${size.total.tokens} cl100k tokens.`
  );
}

function comparisonMarkdown(result: ComparisonResult): string {
  const { settings } = result;
  return [
    `## Side by side (${settings.rounds} rounds; per round and workload: ${settings.sequentialQuestions} questions at c=1, ` +
      settings.throughput.map((level) => `${level.questions} at c=${level.concurrency}`).join(', ') +
      `; ${formatNumber(result.wallSeconds, 0)} s; orders from seed ${settings.seed})`,
    '',
    'Latency is ask → answer from another actor → the asker has the answer. Ratios: median over the rounds of ' +
      'the per-round ratio to the floor, with the range. Ours and in-memory compare with the floor answered the ' +
      'same way (signal or update); the in-memory provider and the peers with the signal floor. The control ' +
      "(`floor, update, again`) is the update floor run again as its own workload: its ratios are this run's noise, " +
      'how far two identical workloads read apart. History: events ' +
      '(median and range over 5 answered questions) and protobuf-encoded bytes (median). gRPC calls: per ' +
      'question, asking side + answering side, retries included.',
    '',
    comparisonTable(result),
    '',
    comparisonNotes(result),
    '',
    '### gRPC calls per question by method',
    '',
    callsTable(result),
    '',
    '### CPU per question and memory (after the comparison)',
    '',
    'CPU time over the measured rounds divided by questions: the bench process holds the asking and the ' +
      'answering side (and the Restate service endpoint); the worker and the server are their own processes.',
    '',
    cpuTable(result),
  ].join('\n');
}

function waitingMarkdown(
  settings: WaitingSettings,
  figures: readonly WaitingFigures[],
  failed: readonly string[],
): string {
  return [
    `## The cost of waiting (${settings.windowSeconds} s window with nothing else happening)`,
    '',
    'One agent process holds the questions (a child process: its CPU and RSS are its own; at most 64 starts in ' +
      'flight while asking). The window starts once the server holds no workflow task for the worker (every ' +
      'question has run its first task) and the worker has gone quiet (under 5% of a core over 2 s). Calls: every gRPC call the agent made in the window, per question and minute. CPU: ' +
      'share of one core over the window. RSS: while holding, and the growth per question from before asking. ' +
      'The floor waits with a raw `handle.result()` per question.',
    '',
    waitingTable(figures),
    '',
    `Then, with the questions still pending: the inbox's first page of 50 and its count, \`ask-user list\` run ` +
      `from dist/ (Node start-up included; five cold starts, one after another: the median and the range), and every question answered from another process (ours: the ` +
      `\`submitAnswer\` update, one call each; floor: the signal), ${settings.answerConcurrency} at a time, until the ` +
      'agent has received them all. "Own answer received" counts asks that resolved with exactly the text given ' +
      'for them; ASK_UNAVAILABLE counts asks that failed so while the server was up; the last two columns count ' +
      "the agent's calls by final status over the whole phase.",

    '',
    pendingReadsTable(figures),
    '',
    answersTable(figures),
    '',
    waitingNotes(figures, failed),
  ].join('\n');
}

const runStartedAt = performance.now();

/** One progress line, with the seconds since the run started. */
function progress(line: string): void {
  process.stdout.write(`  [${Math.round((performance.now() - runStartedAt) / 1000)} s] ${line}\n`);
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const settings: ComparisonSettings = {
    ...(options.quick ? QUICK : FULL),
    ...(options.rounds === undefined ? {} : { rounds: options.rounds }),
    seed: options.seed ?? newSeed(),
  };
  // Only a whole run of a mode's own settings replaces its results; any other is kept apart, dated.
  // The PostgreSQL server's results are kept beside the dev server's, under their own names.
  const kindName = options.quick
    ? 'quick'
    : options.skip.size > 0 || options.rounds !== undefined
      ? 'partial'
      : 'latest';
  const resultsName = options.server === 'dev' ? kindName : `${options.server}-${kindName}`;
  const serverLabel = options.server === 'dev' ? 'dev server' : 'Temporal server on PostgreSQL';
  const runLabel =
    kindName === 'partial'
      ? `partial run on the ${serverLabel}: ${settings.rounds} rounds${options.skip.size > 0 ? `, without ${[...options.skip].join(' and ')}` : ''}`
      : `${kindName === 'quick' ? 'quick' : 'full'} run on the ${serverLabel}`;
  const startedAt = performance.now();
  const startedAtIso = new Date().toISOString();
  const machineAtStart = machine();
  const head = commit();
  process.stdout.write(
    `# durable-ask-user benchmarks (${runLabel})\n\n${describeMachine()}\ncommit ${head}\n`,
  );
  if (options.tool) await runToolLayerBench();
  buildPackage();

  if (options.cpuProfile) {
    const profiles = await fs.mkdtemp(path.join(os.tmpdir(), 'ask-user-bench-profiles-'));
    profileChildren(profiles);
    settings.profilePhase = await ownPhaseProfiler(profiles);
    process.stdout.write(`CPU profiles of the child processes and the bench process go to ${profiles}\n`);
  }
  const resources = new Resources();
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'ask-user-bench-'));
  const markdown: string[] = [];
  const json: Record<string, unknown> = {
    mode: options.quick ? 'quick' : 'full',
    server: options.server,
    ...(kindName === 'partial' ? { partial: { rounds: settings.rounds, skipped: [...options.skip] } } : {}),
    startedAt: startedAtIso,
    commit: head,
    machine: machineAtStart,
    versions: versions(),
  };
  try {
    if (!options.skip.has('comparison')) {
      const { target, floorWorker, oursWorker, floorQueue, oursQueue } = await startTemporal(
        options.server,
        directory,
        'comparison',
        resources,
        options.partitions === undefined ? {} : { taskQueuePartitions: options.partitions },
      );
      json.workers = {
        floor: {
          createMs: floorWorker.ready.createMs,
          maxCachedWorkflows: floorWorker.ready.maxCachedWorkflows,
        },
        ours: {
          createMs: oursWorker.ready.createMs,
          maxCachedWorkflows: oursWorker.ready.maxCachedWorkflows,
          prebuiltBundle: oursWorker.ready.prebuilt,
        },
      };
      process.stdout.write(
        `\ndev server ${target.address}; workers created in ${formatMs(floorWorker.ready.createMs)} (floor) and ` +
          `${formatMs(oursWorker.ready.createMs)} (ours from dist/ with the prebuilt bundle, cache ` +
          `${oursWorker.ready.maxCachedWorkflows} workflows)\n`,
      );

      const workloads: Workload[] = [
        await floorWorkload(target, floorWorker.pid, floorQueue, 'signal'),
        await floorWorkload(target, floorWorker.pid, floorQueue, 'update'),
        await oursWorkload(target, oursWorker.pid, oursQueue, 'update'),
        await oursWorkload(target, oursWorker.pid, oursQueue, 'update as sent'),
        await oursWorkload(target, oursWorker.pid, oursQueue, 'bare update'),
        await oursWorkload(target, oursWorker.pid, oursQueue, 'signal'),
        await approvalWorkload(target, oursWorker.pid, oursQueue),
        await floorWorkload(target, floorWorker.pid, floorQueue, 'update', true),
        inMemoryWorkload(),
      ];
      for (const workload of workloads) resources.add(() => workload.close());
      const unavailable: string[] = [];
      if (!options.skip.has('peers')) {
        for (const [name, start] of [
          ['LangGraph', () => langGraphWorkload(directory)],
          ['Restate', () => restateWorkload(directory, freePort)],
        ] as const) {
          try {
            const workload = await start();
            workloads.push(workload);
            resources.add(() => workload.close());
          } catch (error) {
            unavailable.push(`${name} did not run: ${reasonOf(error)}`);
          }
        }
      }

      const chosen = chooseWorkloads(workloads, options.workloads);
      // The others' connections would keep their async context storages enabled, a cost to every promise.
      for (const workload of workloads) if (!chosen.includes(workload)) await workload.close();
      progress(`${chosen.length} workloads ready`);
      const comparison = await runComparison(chosen, settings, (line) => progress(line));
      json.comparison = comparison;
      markdown.push(comparisonMarkdown(comparison));
      const findings: { workload: string; finding: DoubleAnswerFinding }[] = [];
      for (const workload of chosen) {
        if (workload.doubleAnswer === undefined) continue;
        try {
          findings.push({ workload: workload.name, finding: await workload.doubleAnswer() });
        } catch (error) {
          findings.push({
            workload: workload.name,
            finding: { summary: `the check failed: ${reasonOf(error)}`, details: {} },
          });
        }
      }
      progress('two-answerer checks done');
      json.doubleAnswers = findings;
      json.unavailable = unavailable;
      markdown.push(
        [
          '### Two answerers at once (checked in this run)',
          '',
          ...findings.map(({ workload, finding }) => `- **${workload}**: ${finding.summary}.`),
          ...unavailable.map((line) => `- ${line}`),
        ].join('\n'),
      );
      process.stdout.write(`\n${markdown.join('\n\n')}\n`);

      // The waiting part gets a machine with nothing else running and a dev server of its own (same settings, an
      // empty database): the comparison's thousands of closed questions and its idle peers would otherwise weigh
      // on every visibility query and on the CPU figures of the window.
      await resources.stopAll();
      progress('comparison processes stopped');
    }

    if (!options.skip.has('grants')) {
      // An approval a standing grant covers, against the floor, beside a question and a person's approval.
      const fresh = await startTemporal(options.server, directory, 'grants', resources);
      const { target, floorWorker, oursWorker, floorQueue, oursQueue } = fresh;
      const workloads: Workload[] = [
        await floorWorkload(target, floorWorker.pid, floorQueue, 'signal'),
        await floorWorkload(target, floorWorker.pid, floorQueue, 'update'),
        await oursWorkload(target, oursWorker.pid, oursQueue, 'update'),
        await approvalWorkload(target, oursWorker.pid, oursQueue),
        await grantWorkload(target, oursWorker.pid, oursQueue),
      ];
      for (const workload of workloads) resources.add(() => workload.close());
      const grants = await runComparison(workloads, settings, (line) => progress(line));
      json.grants = grants;
      const section = `### Approvals covered by a standing grant\n\n${comparisonMarkdown(grants)}`;
      markdown.push(section);
      process.stdout.write(`\n${section}\n`);
      await resources.stopAll();
      progress('grants processes stopped');
    }

    if (!options.skip.has('waiting')) {
      const waitingSettings = options.quick ? QUICK_WAITING : FULL_WAITING;
      const fresh = await startTemporal(options.server, directory, 'waiting', resources);
      progress(`dev server for the waiting part: ${fresh.target.address}`);
      const waiting = await runWaiting(
        {
          address: fresh.target.address,
          serverPid: fresh.target.serverPid,
          workers: {
            ours: { pid: fresh.oursWorker.pid, taskQueue: fresh.oursQueue },
            floor: { pid: fresh.floorWorker.pid, taskQueue: fresh.floorQueue },
          },
        },
        waitingSettings,
        (line) => progress(line),
      );
      json.waiting = { settings: waitingSettings, ...waiting };
      const section = waitingMarkdown(waitingSettings, waiting.figures, waiting.failed);
      markdown.push(section);
      process.stdout.write(`\n${section}\n`);
    }

    if (!options.skip.has('agents')) {
      // A server of its own again, with only an ask-user worker: the agent worker's calls and memory are the
      // figures, and nothing from the waiting part's 11,000 questions weighs on them.
      await resources.stopAll();
      const agentSettings = narrowAgents(options.quick ? QUICK_AGENTS : FULL_AGENTS, options.agents);
      const fresh = await startTemporal(options.server, directory, 'agents', resources);
      progress(`dev server for the agent workflows: ${fresh.target.address}`);
      try {
        const agents = await runAgentWorkflows(
          path.join(directory, 'agent-workflow-project'),
          {
            address: fresh.target.address,
            serverPid: fresh.target.serverPid,
            askUserWorker: { pid: fresh.oursWorker.pid, taskQueue: fresh.oursQueue },
          },
          agentSettings,
          freePort,
          (line) => progress(line),
        );
        json.agentWorkflows = { settings: agentSettings, phases: agents };
        const section = agentWorkflowsMarkdown(agents);
        markdown.push(section);
        process.stdout.write(`\n${section}\n`);
      } catch (error) {
        json.agentWorkflows = { settings: agentSettings, failed: reasonOf(error) };
        markdown.push(`### Agents that are workflows, waiting\n\nDid not run: ${reasonOf(error)}`);
        progress(`agent workflows did not run: ${reasonOf(error)}`);
      }
    }

    if (!options.skip.has('long-life')) {
      // A server of its own, at Temporal's default limits: one question's chain of runs is the figure.
      await resources.stopAll();
      const longLifeSettings = options.quick ? QUICK_LONG_LIFE : FULL_LONG_LIFE;
      const fresh = await startTemporal(options.server, directory, 'long-life', resources);
      progress(`dev server for the long life: ${fresh.target.address}`);
      const longLife = await runLongLife(
        { address: fresh.target.address, taskQueue: fresh.oursQueue },
        longLifeSettings,
        (line) => progress(line),
      );
      json.longLife = longLife;
      const section = longLifeMarkdown(longLife);
      markdown.push(section);
      process.stdout.write(`\n${section}\n`);
      // A quick run's figures are not the long life's: they stay in quick.md with the rest.
      if (!options.quick) {
        const name = `${options.server === 'dev' ? '' : `${options.server}-`}long-life`;
        const header = `# durable-ask-user benchmarks: long life (${startedAtIso})\n\n${describeMachine()}\n\ncommit ${head}\n`;
        saveResults(
          name,
          `${header}\n${section}\n`,
          { startedAt: startedAtIso, commit: head, longLife },
          true,
        );
      }
    }

    if (!options.skip.has('actions')) {
      // A server of its own: Temporal Cloud's billable actions per question, from the histories.
      await resources.stopAll();
      const setup = await startTemporal(options.server, directory, 'actions', resources);
      const questions = options.quick ? 2 : 5;
      progress(`billable actions: ${questions} questions a workload`);
      const rows = await runBillableActions(setup.target, setup.floorQueue, setup.oursQueue, questions);
      const section = `## Billable actions per question\n\n${actionsTable(rows)}\n`;
      json.actions = rows;
      markdown.push(section);
      process.stdout.write(`\n${section}\n`);
    }

    if (!options.skip.has('mcp-tasks')) {
      // A server of its own: a modern MCP client's wait for an answer, polled as a task.
      await resources.stopAll();
      const mcpSettings = { rounds: options.quick ? 10 : 50, pollSeconds: 1, server: options.server };
      progress(`the question as an MCP task: ${mcpSettings.rounds} rounds`);
      const section = await runMcpTasks(mcpSettings);
      json.mcpTasks = { settings: mcpSettings, section };
      markdown.push(section);
      process.stdout.write(`\n${section}\n`);
    }

    if (!options.skip.has('audit-export')) {
      // A server of its own: the audit export's memory and time as the closed requests grow tenfold.
      await resources.stopAll();
      const auditSettings = {
        counts: options.quick ? [200, 1_000] : [1_000, 10_000],
        server: options.server,
      };
      progress(`the audit export: ${auditSettings.counts.join(' then ')} closed requests`);
      const section = await runAuditExport(auditSettings);
      json.auditExport = { settings: auditSettings, section };
      markdown.push(section);
      process.stdout.write(`\n${section}\n`);
    }

    if (options.fleet !== undefined) {
      // Servers of its own (ours, then the floor's), with nothing else running.
      await resources.stopAll();
      const fleetSettings = {
        server: options.server,
        ...options.fleet,
        floorQuestions: options.fleet.floorQuestions ?? options.fleet.questions,
        windowSeconds: 60,
        answerConcurrency: 64,
      };
      progress(`a fleet's pending questions: ${fleetSettings.questions} from ${fleetSettings.agents} agents`);
      // Kept apart from the partial run's files too, as the long life is (a quick run's stay in quick.md); ours'
      // figures are saved as soon as they are read, before the floor runs.
      const saveFleet = (fleet: Parameters<typeof fleetMarkdown>[0]): string => {
        const section = fleetMarkdown(fleet);
        process.stdout.write(`\n${section}\n`);
        if (!options.quick) {
          const header = `# durable-ask-user benchmarks: a fleet's pending questions (${startedAtIso})\n\n${describeMachine()}\n\ncommit ${head}\n`;
          const name = `${options.server === 'dev' ? '' : `${options.server}-`}fleet`;
          saveResults(
            name,
            `${header}\n${section}\n`,
            { startedAt: startedAtIso, commit: head, fleet },
            true,
          );
        }
        return section;
      };
      const fleet = await runFleetPending(fleetSettings, directory, (line) => progress(line), saveFleet);
      json.fleet = fleet;
      markdown.push(saveFleet(fleet));
    }
  } finally {
    progress('stopping everything this run started');
    await resources.stopAll();
    await fs.rm(directory, { recursive: true, force: true });
  }

  const wallSeconds = (performance.now() - startedAt) / 1000;
  json.wallSeconds = wallSeconds;
  json.machineAtEnd = machine();
  const header =
    `# durable-ask-user benchmarks (${runLabel}, ${startedAtIso})\n\n` +
    `${describeMachine()}\n\ncommit ${head}; took ${formatNumber(wallSeconds, 0)} s\n\n${schemaLine()}\n`;
  const files = saveResults(resultsName, `${header}\n${markdown.join('\n\n')}\n`, json, kindName !== 'quick');
  process.stdout.write(
    `\n${schemaLine()}\nsaved ${files.join(', ')}\nbenchmarks took ${formatNumber(wallSeconds, 0)} s\n`,
  );
}

/** The message of an error and of each of its causes: a `ServiceError`'s own message rarely says why. */
function reasonOf(error: unknown): string {
  const reasons: string[] = [];
  for (let current = error; current !== undefined && reasons.length < 5;) {
    if (!(current instanceof Error)) {
      reasons.push(typeof current === 'string' ? current : JSON.stringify(current));
      break;
    }
    reasons.push(current.message);
    current = current.cause;
  }
  return reasons.join(': ');
}

main().then(
  () => process.exit(),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${reasonOf(error)}\n`);
    process.exit(1);
  },
);
