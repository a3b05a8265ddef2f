/** `ask-user dev`: the Temporal dev server (SQLite, persisted) and a worker, for local use. */
import path from 'node:path';
import { NativeConnection } from '@temporalio/worker';
import { startDevServer } from '../../dev-server/dev-server-process';
import { ensureTemporalCliInstalled } from '../../dev-server/temporal-cli';
import { createAskUserWorker } from '../../temporal/worker';
import { CliUsageError, parse, stringOption } from '../parse';
import { print } from '../print';
import { installRuntimeLogger, runUntilSignal } from '../worker-runtime';

/** Runs the dev server and a worker until SIGINT/SIGTERM, then stops both. */
export async function run(argv: string[]): Promise<void> {
  const { values } = parse(argv, {
    db: { type: 'string' },
    port: { type: 'string' },
    'ui-port': { type: 'string' },
    headless: { type: 'boolean' },
  });
  const port = Number(stringOption(values, 'port') ?? 7233);
  if (!Number.isInteger(port) || port <= 0) throw new CliUsageError('--port must be a port number');
  const uiPortText = stringOption(values, 'ui-port');
  const uiPort =
    values.headless === true ? false : uiPortText === undefined ? port + 1000 : Number(uiPortText);
  const dbFile = path.resolve(
    stringOption(values, 'db') ??
      process.env.ASK_USER_DEV_DB ??
      path.join(process.cwd(), '.data', 'temporal.sqlite'),
  );

  installRuntimeLogger();
  const binary = ensureTemporalCliInstalled();
  const server = await startDevServer({ dbFile, port, uiPort, binary });
  try {
    const connection = await NativeConnection.connect({ address: server.address });
    try {
      const worker = await createAskUserWorker({
        connection,
        namespace: 'default',
        shutdownForceTime: '10s',
      });
      print(`Temporal dev server  ${server.address} (data: ${dbFile})`);
      if (server.uiUrl !== undefined) print(`Temporal Web UI      ${server.uiUrl}`);
      print(`Worker               task queue ${worker.options.taskQueue}`);
      print(
        [
          '',
          'Ask:     npx ask-user ask --question "Deploy now?" --option Yes --option No',
          'Answer:  npx ask-user list, then npx ask-user answer <id>',
          'Stop:    Ctrl-C',
        ].join('\n'),
      );
      await runUntilSignal(worker);
    } finally {
      await connection.close();
    }
  } finally {
    await server.stop();
  }
}
