/**
 * CPU profiles of the bench process itself, one a workload and phase: the comparison's bench process holds
 * every workload's asking and answering side, so a profile of the whole process cannot tell ours' share from the
 * floor's. With `--cpu-prof`, each throughput phase of each workload is profiled on its own and written under
 * `<directory>/bench-process/<workload>/`; `profile-summary.ts --sum` adds a workload's phases up. Stopping the
 * profiler, in this thread, shows in each profile as `dispatch` (V8 / native), some 150-200 ms a phase: it is
 * the profiler's, not the workload's.
 */
import fs from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import path from 'node:path';

/** Runs a phase under the profiler and writes its profile as `<workload>/<phase>.cpuprofile`. */
export type PhaseProfiler = <T>(workload: string, phase: string, run: () => Promise<T>) => Promise<T>;

/** A profiler of this process's phases, writing under `directory/bench-process/`. */
export async function ownPhaseProfiler(directory: string): Promise<PhaseProfiler> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  return async (workload, phase, run) => {
    await session.post('Profiler.start');
    try {
      return await run();
    } finally {
      const { profile } = await session.post('Profiler.stop');
      const folder = path.join(directory, 'bench-process', workload.replace(/[^a-z0-9]+/gi, '-'));
      await fs.mkdir(folder, { recursive: true });
      await fs.writeFile(path.join(folder, `${phase}.cpuprofile`), JSON.stringify(profile));
    }
  };
}
