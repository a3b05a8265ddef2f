/**
 * What the long-running commands (`dev`, `worker`) share: the Temporal runtime's logger, and running a worker
 * until SIGINT/SIGTERM. Loads `@temporalio/worker`, so only those commands import it.
 */
import { DefaultLogger, Runtime, type LogLevel, type Worker } from '@temporalio/worker';
import { untilSignal } from './until-signal';

/**
 * The worker logs at INFO by default, bundler output included; a terminal command shows warnings only unless
 * `ASK_USER_LOG_LEVEL` says otherwise. Must run before the first worker or native connection is created.
 */
export function installRuntimeLogger(): void {
  const level = (process.env.ASK_USER_LOG_LEVEL ?? 'WARN').toUpperCase() as LogLevel;
  // Shutdown on SIGINT/SIGTERM is ours to order (worker, then connection, then dev server), not the runtime's.
  Runtime.install({ logger: new DefaultLogger(level), shutdownSignals: [] });
}

/** Runs the worker until SIGINT/SIGTERM, then shuts it down and waits for it to drain. */
export async function runUntilSignal(worker: Worker): Promise<void> {
  const running = worker.run();
  const signal = await Promise.race([untilSignal(), running.then(() => undefined)]);
  if (signal !== undefined && worker.getState() === 'RUNNING') worker.shutdown();
  await running;
}
