/** `ask-user worker`: the ask-user worker against the server that `TEMPORAL_*` names. */
import { createAskUserWorker } from '../../worker/worker';
import { COMMAND_SPECS } from '../command-specs';
import { parse } from '../parse';
import { print } from '../print';
import { installRuntimeLogger, runUntilSignal } from '../worker-runtime';

/** Runs the worker until SIGINT/SIGTERM. */
export async function run(argv: string[]): Promise<void> {
  parse(COMMAND_SPECS.worker, argv);
  installRuntimeLogger();
  const worker = await createAskUserWorker({ shutdownForceTime: '10s' });
  print(
    `ask-user worker polling task queue ${worker.options.taskQueue} in namespace ${worker.options.namespace}`,
  );
  await runUntilSignal(worker);
}
