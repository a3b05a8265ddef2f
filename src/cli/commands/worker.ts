/** `ask-user worker`: the ask-user worker against the server that `TEMPORAL_*` names. */
import { webhookOptionsFromEnv } from '../../activities/webhook-activities';
import { createAskUserWorker } from '../../worker/worker';
import { COMMAND_SPECS } from '../command-specs';
import { parse } from '../parse';
import { print } from '../print';
import { installRuntimeLogger, runUntilSignal } from '../worker-runtime';

/** Runs the worker until SIGINT/SIGTERM. */
export async function run(argv: string[]): Promise<void> {
  parse(COMMAND_SPECS.worker, argv);
  installRuntimeLogger();
  // The bot token, channel and webhook URLs of the environment (ASK_USER_SLACK_*, ASK_USER_WEBHOOK_*).
  const webhooks = webhookOptionsFromEnv();
  const worker = await createAskUserWorker({ shutdownForceTime: '10s', webhooks });
  print(
    `ask-user worker polling task queue ${worker.options.taskQueue} in namespace ${worker.options.namespace}`,
  );
  if (webhooks.slack?.channel !== undefined)
    print(`Slack bot posting questions to ${webhooks.slack.channel}`);
  await runUntilSignal(worker);
}
