/**
 * The one registry of the processes a test process starts: dev servers (test/helpers/temporal.ts), the
 * cluster's PostgreSQL and Temporal server (test/helpers/cluster.ts) and black-box children such as agents, workers and the `ask-user` CLI (test/fixtures/child-process.ts).
 *
 * Nothing a test starts may outlive the test process, whichever way it ends:
 * - normally, or forced by the runner (`--test-force-exit` after a test timed out, when the test's own
 *   `finally` never ran): everything still tracked is SIGKILLed on `'exit'`;
 * - by SIGINT, SIGTERM or SIGHUP (Ctrl-C, the runner cancelling a file): everything is SIGKILLed at once,
 *   because a process that dies by a signal never emits `'exit'`.
 *
 * Test files also kill what their tests left from `after()` ({@link killTrackedProcesses}, or `killChildren()`
 * of test/fixtures/child-process.ts), which node:test runs even when a test timed out, so one file's leftovers
 * do not hold ports while its remaining hooks run.
 */
import type { ChildProcess } from 'node:child_process';

/** What started a tracked process; lets a file kill its children without its server (or both). */
export type ProcessKind = 'child' | 'dev-server' | 'cluster';

/** Options of {@link trackProcess}. */
export interface TrackProcessOptions {
  kind: ProcessKind;
  /**
   * The process leads its own process group (spawned `detached`): killing it kills the whole group, so what
   * it started (`ask-user dev` starts a dev server) goes too, even after the leader itself is gone.
   */
  processGroup?: boolean;
}

interface TrackedProcess {
  kind: ProcessKind;
  processGroup: boolean;
}

const TERMINATION_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

const tracked = new Map<ChildProcess, TrackedProcess>();
let handlersInstalled = false;

/** True while `child` has not exited. */
export function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** True while some process is still in the process group `groupId`. */
export function processGroupExists(groupId: number): boolean {
  try {
    process.kill(-groupId, 0);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}

/** Tracks `child` until it exits (or, for a process group, until nothing is left in the group). */
export function trackProcess(child: ChildProcess, options: TrackProcessOptions): void {
  const pid = child.pid;
  if (pid === undefined) return; // never started: nothing to kill
  const processGroup = options.processGroup ?? false;
  tracked.set(child, { kind: options.kind, processGroup });
  installHandlers();
  // An exited process is forgotten at once: its PID may be reused. A group is kept while anything is left in
  // it (its id cannot be reused then); an empty group is forgotten like a plain process.
  child.once('exit', () => {
    if (!processGroup || !processGroupExists(pid)) tracked.delete(child);
  });
}

/**
 * SIGKILLs `child`, or its whole process group when it was tracked as one, and forgets it. A process (or group)
 * that is already gone is not an error.
 */
export function killProcess(child: ChildProcess): void {
  const entry = tracked.get(child);
  tracked.delete(child);
  const pid = child.pid;
  if (entry?.processGroup === true && pid !== undefined) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  } else if (isRunning(child)) {
    child.kill('SIGKILL');
  }
}

/**
 * SIGKILLs every tracked process (of `kind`, when given) and waits until each has exited. Rejects, naming the
 * PIDs, when some have not exited after `timeoutMs`.
 */
export async function killTrackedProcesses(kind?: ProcessKind, timeoutMs = 15_000): Promise<void> {
  const victims = [...tracked].filter(([, entry]) => kind === undefined || entry.kind === kind);
  for (const [child] of victims) killProcess(child);
  await Promise.all(victims.map(([child]) => exitOf(child, timeoutMs)));
}

/** Resolves once `child` has exited; rejects after `timeoutMs`. */
function exitOf(child: ChildProcess, timeoutMs: number): Promise<void> {
  if (!isRunning(child)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.off('exit', onExit);
      reject(new Error(`process ${child.pid} did not exit within ${timeoutMs} ms of SIGKILL`));
    }, timeoutMs);
    const onExit = (): void => {
      clearTimeout(timer);
      resolve();
    };
    child.once('exit', onExit);
  });
}

function killAllNow(): void {
  for (const child of [...tracked.keys()]) {
    try {
      killProcess(child);
    } catch {
      // Keep going: the others must die all the same.
    }
  }
}

function onTerminationSignal(signal: NodeJS.Signals): void {
  killAllNow();
  for (const each of TERMINATION_SIGNALS) process.off(each, onTerminationSignal);
  // Listening replaced the default action, which is to die by the signal. If nobody else listens, raise it
  // once more, now unheard, so the process ends as if nobody had listened. Whoever else listens (the Temporal
  // runtime shuts its workers down on SIGINT and SIGTERM) has this signal already and decides what follows.
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

function installHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.once('exit', killAllNow);
  for (const signal of TERMINATION_SIGNALS) process.on(signal, onTerminationSignal);
}
