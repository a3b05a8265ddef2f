/**
 * Runs the workloads side by side, interleaved in rounds: in every round the workloads ask their questions one
 * at a time (latency at c=1), then each runs at c=16 and c=64 in turn (throughput, closed loop: each lane asks
 * its next question as soon as its last was received). Every turn draws a new order of the workloads from the
 * run's seed (`order.ts`), so that none always runs right after the same one, whose work the server is still
 * finishing. Ratios to the floor are taken per round, then summarised by their median and range, so that load
 * from other work on the machine, which shifts whole rounds, cancels out.
 *
 * At c=1 the workloads take turns question by question (the first question of each, then the second of each,
 * in a new order every turn), so that the host's speed, which drifts within a round, is the same for all of
 * them: run as blocks of 75 questions each, two identical workloads read 0.72-1.14x apart in p50 on a slow host,
 * more than the 10 % the latency target allows.
 */
import { addCounts, noCalls, type CallCounts } from './grpc-calls';
import { median, percentile } from './measure';
import { RunOrder } from './order';
import type { PhaseProfiler } from './own-profile';
import {
  STRAGGLER_OVER_P99,
  phaseFigures,
  sample,
  spent,
  type CpuSpent,
  type PhaseFigures,
  type Samples,
} from './phases';
import { sampleProcess } from './processes';
import type { HistorySize, Workload } from './workloads';

/** How much each round does. */
export interface ComparisonSettings {
  rounds: number;
  /** Questions asked one at a time per workload and round. */
  sequentialQuestions: number;
  /** Concurrency levels and how many questions each runs per workload and round. */
  throughput: { concurrency: number; questions: number }[];
  /** Questions each workload asks before the first round, not measured. */
  warmupQuestions: number;
  /** The seed of the orders the workloads take their turns in (`order.ts`); a run with the same one repeats them. */
  seed: number;
  /** Profiles the bench process through each throughput phase of each workload (`--cpu-prof`). */
  profilePhase?: PhaseProfiler;
}

/** How many answered questions' histories are read per workload (the last ones of the first round at c=1). */
const HISTORY_SAMPLES = 5;

/** What one workload did in one round. */
interface RoundResult {
  latencies: number[];
  /** Questions per second, by concurrency. */
  throughput: Record<number, number>;
  /** What each throughput phase spent, by concurrency. */
  phases: Record<number, PhaseFigures>;
}

/** Everything measured for one workload. */
export interface WorkloadFigures {
  name: string;
  group: Workload['group'];
  floor: string;
  description: string;
  rounds: RoundResult[];
  questions: number;
  failures: Record<string, number>;
  cpu: CpuSpent;
  agentCalls?: CallCounts;
  answererCalls?: CallCounts;
  /** Median over the sampled questions, and the range. */
  history?: HistorySize;
  historyRange?: { events: [number, number]; bytes: [number, number] };
  /** Resident memory at the end of the comparison, in bytes. */
  memory: { server?: number; worker?: number };
}

/** A ratio's median and range over the rounds. */
export interface RatioSummary {
  median: number;
  min: number;
  max: number;
}

/** One row of the comparison, ready to print. */
export interface ComparisonRow {
  name: string;
  group: Workload['group'];
  floor: string;
  description: string;
  latency: { p50: number; p95: number; p99: number; samples: number };
  /** Each round's own figures, in round order: what the ratios' medians and ranges are taken over. */
  rounds: {
    p50: number;
    p99: number;
    throughput: Record<number, number>;
    phases: Record<number, PhaseFigures>;
  }[];
  latencyRatio?: { p50: RatioSummary; p99: RatioSummary };
  throughput: Record<number, number>;
  throughputRatio?: Record<number, RatioSummary>;
  questions: number;
  failures: Record<string, number>;
  /** CPU milliseconds per question. */
  cpuPerQuestion: CpuSpent;
  agentCallsPerQuestion?: Record<string, number>;
  answererCallsPerQuestion?: Record<string, number>;
  /** Median over the sampled questions, and the range. */
  history?: HistorySize;
  historyRange?: { events: [number, number]; bytes: [number, number] };
  memory: { server?: number; worker?: number };
}

/** The outcome of the comparison. */
export interface ComparisonResult {
  settings: ComparisonSettings;
  rows: ComparisonRow[];
  wallSeconds: number;
}

function addSpent(figures: WorkloadFigures, before: Samples, after: Samples): void {
  const cpu = spent(before, after);
  figures.cpu.bench += cpu.bench;
  figures.cpu.server += cpu.server;
  figures.cpu.worker += cpu.worker;
}

function describeError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\d+/g, 'N').slice(0, 160);
}

/**
 * Leaves the bench process's async context cost to the workload about to run, as in a process of its own.
 *
 * Every Temporal `Connection` keeps an `AsyncLocalStorage`, enabled when it connects. On Node 20, every promise
 * and other async resource the process creates is then handed to each enabled storage (`_propagate`, about 8 %
 * of this process's busy time with every workload's connections enabled). An agent's or an inbox's process holds
 * one or two connections; this process holds every workload's, 14 of them. Left so, each question would pay for
 * 14, and the workloads that create more promises per question would pay most of a cost no deployment has. So
 * the other workloads' storages are disabled (a call of theirs would enable its own again) and this one's are
 * enabled. On Node 24 (`AsyncContextFrame`) storages cost nothing per promise, and this changes nothing.
 */
function focusAsyncContext(workloads: readonly Workload[], running: Workload): void {
  for (const workload of workloads) {
    if (workload === running) continue;
    for (const connection of workload.connections ?? []) connection.callContextStorage.disable();
  }
  for (const connection of running.connections ?? []) {
    const storage = connection.callContextStorage;
    // `run` enables a storage that is not; the scope ends with the callback, the storage stays enabled.
    storage.run({ ...storage.getStore() }, () => undefined);
  }
}

/** Runs `workload.question` for `keys` over `concurrency` lanes; counts failures instead of stopping. */
async function runQuestions(
  workload: Workload,
  figures: WorkloadFigures,
  keys: readonly string[],
  concurrency: number,
  latencies?: number[],
  slowest?: { key: string; ms: number; askedAt: number },
): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < keys.length) {
      const key = keys[next]!;
      next += 1;
      const startedAt = performance.now();
      const askedAt = Date.now();
      try {
        await workload.question(key);
        const ms = performance.now() - startedAt;
        latencies?.push(ms);
        if (slowest !== undefined && ms > slowest.ms) Object.assign(slowest, { key, ms, askedAt });
      } catch (error) {
        const reason = describeError(error);
        figures.failures[reason] = (figures.failures[reason] ?? 0) + 1;
      }
      figures.questions += 1;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, keys.length) }, lane));
}

function keysFor(workload: Workload, label: string, count: number): string[] {
  const slug = workload.name.replace(/[^a-z0-9]+/gi, '-');
  return Array.from({ length: count }, (_unused, index) => `${slug}-${label}-${index}`);
}

function ratioSummary(values: readonly number[]): RatioSummary {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}

function perQuestion(counts: CallCounts | undefined, questions: number): Record<string, number> | undefined {
  if (counts === undefined || questions === 0) return undefined;
  const result: Record<string, number> = {};
  for (const [method, count] of Object.entries(counts.byMethod)) result[method] = count / questions;
  return result;
}

/**
 * Runs every workload through the rounds and summarises. `onProgress` receives one line per round and phase.
 */
export async function runComparison(
  workloads: readonly Workload[],
  settings: ComparisonSettings,
  onProgress: (line: string) => void,
): Promise<ComparisonResult> {
  const startedAt = performance.now();
  const order = new RunOrder(settings.seed);
  const figures = new Map<string, WorkloadFigures>();
  for (const workload of workloads) {
    figures.set(workload.name, {
      name: workload.name,
      group: workload.group,
      floor: workload.floor,
      description: workload.description,
      rounds: [],
      questions: 0,
      failures: {},
      cpu: { bench: 0, server: 0, worker: 0 },
      memory: {},
    });
  }
  const figuresOf = (workload: Workload): WorkloadFigures => figures.get(workload.name)!;

  for (const workload of workloads) {
    focusAsyncContext(workloads, workload);
    await runQuestions(
      workload,
      figuresOf(workload),
      keysFor(workload, 'warmup', settings.warmupQuestions),
      4,
    );
  }
  // CPU and calls are counted from here: the warmup pays for first connections, caches and JIT.
  const callsAfterWarmup = new Map<string, { agent: CallCounts; answerer: CallCounts } | undefined>();
  for (const workload of workloads) {
    callsAfterWarmup.set(workload.name, workload.calls?.());
    figuresOf(workload).questions = 0;
    figuresOf(workload).failures = {};
  }

  const historyKeys = new Map<string, string[]>();
  for (let round = 0; round < settings.rounds; round += 1) {
    const results = new Map<string, RoundResult>();
    for (const workload of workloads) results.set(workload.name, { latencies: [], throughput: {}, phases: {} });
    const sequentialKeys = new Map(
      workloads.map((workload) => [workload, keysFor(workload, `r${round}-c1`, settings.sequentialQuestions)]),
    );
    for (let index = 0; index < settings.sequentialQuestions; index += 1) {
      for (const workload of order.shuffle(workloads)) {
        focusAsyncContext(workloads, workload);
        const before = sample(workload.processes, { host: false });
        const key = sequentialKeys.get(workload)![index]!;
        await runQuestions(workload, figuresOf(workload), [key], 1, results.get(workload.name)!.latencies);
        addSpent(figuresOf(workload), before, sample(workload.processes, { host: false }));
      }
    }
    if (round === 0) {
      for (const [workload, keys] of sequentialKeys)
        historyKeys.set(workload.name, keys.slice(-HISTORY_SAMPLES));
    }
    onProgress(`round ${round + 1}/${settings.rounds}: c=1 done`);
    for (const { concurrency, questions } of settings.throughput) {
      for (const workload of order.shuffle(workloads)) {
        const keys = keysFor(workload, `r${round}-c${concurrency}`, questions);
        focusAsyncContext(workloads, workload);
        const before = sample(workload.processes);
        const latencies: number[] = [];
        const slowest = { key: '', ms: 0, askedAt: 0 };
        const phase = (): Promise<void> =>
          runQuestions(workload, figuresOf(workload), keys, concurrency, latencies, slowest);
        await (settings.profilePhase?.(workload.name, `r${round}-c${concurrency}`, phase) ?? phase());
        const after = sample(workload.processes);
        addSpent(figuresOf(workload), before, after);
        const figures = phaseFigures(before, after, questions);
        if (latencies.length > 0) {
          const [p50, p99] = [percentile(latencies, 0.5), percentile(latencies, 0.99)];
          figures.latency = { p50, p99, max: slowest.ms };
          figures.slowest = slowest;
        }
        results.get(workload.name)!.throughput[concurrency] = questions / figures.seconds;
        results.get(workload.name)!.phases[concurrency] = figures;
      }
      onProgress(`round ${round + 1}/${settings.rounds}: c=${concurrency} done`);
    }
    for (const workload of workloads) figuresOf(workload).rounds.push(results.get(workload.name)!);
  }

  for (const workload of workloads) {
    const workloadFigures = figuresOf(workload);
    // Calls are read before the history is fetched, which is a call of the benchmark, not of the workload.
    const calls = workload.calls?.();
    const warmup = callsAfterWarmup.get(workload.name);
    if (calls !== undefined && warmup !== undefined) {
      workloadFigures.agentCalls = subtract(calls.agent, warmup.agent);
      workloadFigures.answererCalls = subtract(calls.answerer, warmup.answerer);
    }
    await describeStragglers(workload, workloadFigures);
    const keys = historyKeys.get(workload.name) ?? [];
    if (workload.history !== undefined && keys.length > 0) {
      const sizes: HistorySize[] = [];
      for (const key of keys) sizes.push(await workload.history(key));
      const typical = [...sizes].sort((a, b) => a.events - b.events)[Math.floor(sizes.length / 2)];
      workloadFigures.history = {
        events: median(sizes.map((size) => size.events)),
        bytes: median(sizes.map((size) => size.bytes)),
      };
      if (typical?.eventTypes !== undefined) workloadFigures.history.eventTypes = typical.eventTypes;
      workloadFigures.historyRange = {
        events: [
          Math.min(...sizes.map((size) => size.events)),
          Math.max(...sizes.map((size) => size.events)),
        ],
        bytes: [Math.min(...sizes.map((size) => size.bytes)), Math.max(...sizes.map((size) => size.bytes))],
      };
    }
    const server = sampleProcess(workload.processes.server);
    const worker = sampleProcess(workload.processes.worker);
    if (server !== undefined) workloadFigures.memory.server = server.rss;
    if (worker !== undefined) workloadFigures.memory.worker = worker.rss;
  }

  const rows = workloads.map((workload) => summarise(figuresOf(workload), figures.get(workload.floor)));
  return { settings, rows, wallSeconds: (performance.now() - startedAt) / 1000 };
}

/** Reads the history of every phase's slowest question that was a straggler: where its time went. */
async function describeStragglers(workload: Workload, figures: WorkloadFigures): Promise<void> {
  if (workload.history === undefined) return;
  for (const round of figures.rounds) {
    for (const phase of Object.values(round.phases)) {
      const { slowest, latency } = phase;
      if (slowest === undefined || latency === undefined || slowest.ms <= STRAGGLER_OVER_P99 * latency.p99)
        continue;
      try {
        const history = await workload.history(slowest.key);
        slowest.events = (history.eventTypes ?? []).map(
          (type, index) => `${type} +${Math.round((history.eventTimes?.[index] ?? 0) - slowest.askedAt)} ms`,
        );
      } catch (error) {
        slowest.events = [`history not read: ${describeError(error)}`];
      }
    }
  }
}

function subtract(after: CallCounts, before: CallCounts): CallCounts {
  const negated: CallCounts = {
    byMethod: Object.fromEntries(Object.entries(before.byMethod).map(([key, value]) => [key, -value])),
    byStatus: Object.fromEntries(Object.entries(before.byStatus).map(([key, value]) => [key, -value])),
    total: -before.total,
  };
  const result = addCounts(addCounts(noCalls(), after), negated);
  const nonZero = (record: Record<string, number>): Record<string, number> =>
    Object.fromEntries(Object.entries(record).filter(([, value]) => value !== 0));
  return { byMethod: nonZero(result.byMethod), byStatus: nonZero(result.byStatus), total: result.total };
}

function summarise(figures: WorkloadFigures, floor: WorkloadFigures | undefined): ComparisonRow {
  const all = figures.rounds.flatMap((round) => round.latencies);
  const concurrencies = Object.keys(figures.rounds[0]?.throughput ?? {}).map(Number);
  const throughput: Record<number, number> = {};
  for (const concurrency of concurrencies) {
    throughput[concurrency] = median(
      figures.rounds.map((round) => round.throughput[concurrency] ?? Number.NaN),
    );
  }
  const questions = Math.max(figures.questions, 1);
  const row: ComparisonRow = {
    name: figures.name,
    group: figures.group,
    floor: figures.floor,
    description: figures.description,
    latency: {
      p50: percentile(all, 0.5),
      p95: percentile(all, 0.95),
      p99: percentile(all, 0.99),
      samples: all.length,
    },
    rounds: figures.rounds.map((round) => ({
      p50: percentile(round.latencies, 0.5),
      p99: percentile(round.latencies, 0.99),
      throughput: round.throughput,
      phases: round.phases,
    })),
    throughput,
    questions: figures.questions,
    failures: figures.failures,
    cpuPerQuestion: {
      bench: (figures.cpu.bench * 1000) / questions,
      server: (figures.cpu.server * 1000) / questions,
      worker: (figures.cpu.worker * 1000) / questions,
    },
    memory: figures.memory,
  };
  const agentCalls = perQuestion(figures.agentCalls, figures.questions);
  const answererCalls = perQuestion(figures.answererCalls, figures.questions);
  if (agentCalls !== undefined) row.agentCallsPerQuestion = agentCalls;
  if (answererCalls !== undefined) row.answererCallsPerQuestion = answererCalls;
  if (figures.history !== undefined) row.history = figures.history;
  if (figures.historyRange !== undefined) row.historyRange = figures.historyRange;
  if (floor !== undefined && floor !== figures) {
    const pairs = figures.rounds.map((round, index) => [round, floor.rounds[index]!] as const);
    row.latencyRatio = {
      p50: ratioSummary(
        pairs.map(([own, base]) => percentile(own.latencies, 0.5) / percentile(base.latencies, 0.5)),
      ),
      p99: ratioSummary(
        pairs.map(([own, base]) => percentile(own.latencies, 0.99) / percentile(base.latencies, 0.99)),
      ),
    };
    row.throughputRatio = {};
    for (const concurrency of concurrencies) {
      row.throughputRatio[concurrency] = ratioSummary(
        pairs.map(
          ([own, base]) =>
            (own.throughput[concurrency] ?? Number.NaN) / (base.throughput[concurrency] ?? Number.NaN),
        ),
      );
    }
  }
  return row;
}
