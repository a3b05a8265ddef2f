/**
 * Child processes of the benchmark: TypeScript children forked under tsx with an IPC channel, and readings of
 * any process's CPU time and resident memory from `/proc`. Every child is recorded when spawned and stopped by
 * its own process id, at the latest when the benchmark process exits.
 */
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** What a worker child reports once it polls. */
export interface WorkerMessage {
  type: 'ready';
  createMs: number;
  maxCachedWorkflows: number;
  /** Ours only: whether the worker loaded the prebuilt workflow bundle instead of bundling at start. */
  prebuilt: boolean;
}

const children = new Set<ChildProcess>();

// Ctrl-C or a kill of the benchmark: exit, so that the 'exit' handler below stops the children.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

process.on('exit', () => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});

/** Records a child started elsewhere, so that it is killed if the benchmark exits without stopping it. */
export function recordChild(child: ChildProcess): void {
  children.add(child);
  child.once('exit', () => children.delete(child));
}

let profileDirectory: string | undefined;

/**
 * From now on, children forked by {@link forkScript} run with `--cpu-prof` and write their profiles (one
 * per thread: a Temporal worker's workflow threads get their own) under `directory/<label>/`.
 */
export function profileChildren(directory: string): void {
  profileDirectory = directory;
}

/**
 * Forks `file` with `args`, stdout and stderr inherited, and an IPC channel: a `.ts` file under tsx, a `.js`
 * file on plain Node. `label` names the child's profile directory when children are profiled.
 */
export function forkScript(
  file: string,
  args: readonly string[],
  label: string,
  env: NodeJS.ProcessEnv = process.env,
): ChildProcess {
  const profiling =
    profileDirectory === undefined
      ? []
      : ['--cpu-prof', '--cpu-prof-dir', path.join(profileDirectory, label)];
  const child = fork(file, [...args], {
    execArgv: [...(file.endsWith('.ts') ? ['--import', 'tsx'] : []), ...profiling],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env,
  });
  recordChild(child);
  return child;
}

/** The next IPC message of `type` from `child`; rejects if the child exits first or `timeoutMs` passes. */
export async function nextMessage<T extends { type: string }>(
  child: ChildProcess,
  type: T['type'],
  timeoutMs: number,
): Promise<T> {
  return await new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(
        new Error(`child ${child.pid} sent no "${type}" message within ${Math.round(timeoutMs / 1000)} s`),
      );
    }, timeoutMs);
    const onMessage = (message: unknown): void => {
      if (typeof message === 'object' && message !== null && (message as { type?: unknown }).type === type) {
        cleanup();
        resolve(message as T);
      }
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
      cleanup();
      reject(new Error(`child ${child.pid} exited (${signal ?? `code ${code}`}) before sending "${type}"`));
    };
    function cleanup(): void {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    }
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/**
 * Stops a child: asks it over IPC (`{ type: 'stop' }`) when it has a channel, else sends SIGTERM; kills it
 * with SIGKILL after `graceMs`. Resolves once it has exited.
 */
export async function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  if (child.connected) child.send({ type: 'stop' });
  else child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** CPU time (user + system) and resident memory of one process at one moment. */
export interface ProcessSample {
  cpuSeconds: number;
  rss: number;
}

/** Clock ticks per second of `/proc/<pid>/stat` times; 100 on every Linux this runs on. */
const CLOCK_TICKS = 100;

/** Reads `/proc/<pid>/stat` and `/proc/<pid>/status`; `undefined` when the process is gone or not on Linux. */
export function sampleProcess(pid: number | undefined): ProcessSample | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at field 3; utime is 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cpuSeconds = (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
    return { cpuSeconds, rss: match === null ? Number.NaN : Number(match[1]) * 1024 };
  } catch {
    return undefined;
  }
}

/** The machine's CPU time by state, in seconds summed over its cores (the first line of `/proc/stat`). */
export interface HostSample {
  busy: number;
  idle: number;
  iowait: number;
  steal: number;
}

/** Reads the machine's CPU time by state; undefined where `/proc/stat` is not there. */
export function sampleHost(): HostSample | undefined {
  try {
    const line = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
    // cpu user nice system idle iowait irq softirq steal guest guest_nice (guest time is inside user)
    const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = line
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    const seconds = (ticks: number): number => ticks / CLOCK_TICKS;
    return {
      busy: seconds(user + nice + system + irq + softirq),
      idle: seconds(idle),
      iowait: seconds(iowait),
      steal: seconds(steal),
    };
  } catch {
    return undefined;
  }
}

/** CPU share of one core between two samples taken `seconds` apart (1 = one full core). */
export function cpuShare(
  before: ProcessSample | undefined,
  after: ProcessSample | undefined,
  seconds: number,
): number {
  if (before === undefined || after === undefined || seconds <= 0) return Number.NaN;
  return (after.cpuSeconds - before.cpuSeconds) / seconds;
}

/** A loopback port that was free a moment ago, below the ephemeral range (scripts/free-port.js says why). */
export { freePort } from '../scripts/free-port';
