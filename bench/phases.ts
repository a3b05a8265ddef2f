/**
 * What one throughput phase of the comparison spent: CPU a question in each process, and how the machine's CPU
 * time went while it ran (busy, idle, waiting on the disk, taken by the host). A phase that runs far slower than
 * its round's others can then be told apart: more CPU a question (a costlier path somewhere), or idle cores (a
 * wait: the disk, a timeout), or time the host took.
 */
import { sampleHost, sampleProcess, type HostSample, type ProcessSample } from './processes';
import type { Workload } from './workloads';

/** CPU seconds spent per component while one workload ran. */
export interface CpuSpent {
  bench: number;
  server: number;
  worker: number;
}

/** One phase's figures. */
export interface PhaseFigures {
  seconds: number;
  /** CPU milliseconds a question. */
  cpuPerQuestion: CpuSpent;
  /** Each question's time from ask to answer received, in ms: a slow phase of uniformly slower questions, or of a few stragglers. */
  latency?: { p50: number; p99: number; max: number };
  /**
   * The phase's slowest question: its key, its time, and, when it was a straggler (over
   * {@link STRAGGLER_OVER_P99} times the phase's p99), its history's events with when each was written, in ms
   * after the question was asked.
   */
  slowest?: { key: string; ms: number; askedAt: number; events?: string[] };
  /** Shares of the machine's CPU time over the phase (all cores together; they sum to about 1). */
  host?: { busy: number; idle: number; iowait: number; steal: number };
}

/** A snapshot of the counters a phase is measured by. */
export interface Samples {
  at: number;
  bench: number;
  server: ProcessSample | undefined;
  worker: ProcessSample | undefined;
  host: HostSample | undefined;
}

/** A slowest question over this many times its phase's p99 is a straggler, whose history is read. */
export const STRAGGLER_OVER_P99 = 1.25;

/**
 * Takes the counters now. `host: false` leaves `/proc/stat` unread: the c=1 questions, sampled one by one, have
 * no use for it, and this process's CPU after the snapshot counts towards the question.
 */
export function sample(processes: Workload['processes'], { host = true } = {}): Samples {
  const usage = process.cpuUsage();
  return {
    at: performance.now(),
    bench: (usage.user + usage.system) / 1e6,
    server: sampleProcess(processes.server),
    worker: sampleProcess(processes.worker),
    host: host ? sampleHost() : undefined,
  };
}

/** CPU seconds each process spent between two snapshots (0 for a process that could not be read). */
export function spent(before: Samples, after: Samples): CpuSpent {
  const between = (from: ProcessSample | undefined, to: ProcessSample | undefined): number =>
    from === undefined || to === undefined ? 0 : to.cpuSeconds - from.cpuSeconds;
  return {
    bench: after.bench - before.bench,
    server: between(before.server, after.server),
    worker: between(before.worker, after.worker),
  };
}

/** The figures of a phase that answered `questions` between two snapshots. */
export function phaseFigures(before: Samples, after: Samples, questions: number): PhaseFigures {
  const cpu = spent(before, after);
  const perQuestion = (seconds: number): number => (seconds * 1000) / Math.max(questions, 1);
  const figures: PhaseFigures = {
    seconds: (after.at - before.at) / 1000,
    cpuPerQuestion: {
      bench: perQuestion(cpu.bench),
      server: perQuestion(cpu.server),
      worker: perQuestion(cpu.worker),
    },
  };
  if (before.host !== undefined && after.host !== undefined) {
    const delta = {
      busy: after.host.busy - before.host.busy,
      idle: after.host.idle - before.host.idle,
      iowait: after.host.iowait - before.host.iowait,
      steal: after.host.steal - before.host.steal,
    };
    const total = delta.busy + delta.idle + delta.iowait + delta.steal;
    if (total > 0) {
      figures.host = {
        busy: delta.busy / total,
        idle: delta.idle / total,
        iowait: delta.iowait / total,
        steal: delta.steal / total,
      };
    }
  }
  return figures;
}
