/**
 * `ask-user watch`: prints each question that becomes pending, as it arrives, until Ctrl-C. One line per
 * question, or one JSON object per line with `--json`. Reads visibility only: no worker needed.
 */
import { errorText } from '../../common';
import { QuestionWatcher, type QuestionSummary } from '../../ops';
import { loadTemporalSettings } from '../../connection/connection-config';
import { COMMAND_SPECS } from '../command-specs';
import { CliUsageError, parse, stringOption } from '../parse';
import { print } from '../print';
import { untilSignal } from '../until-signal';
import { withClient } from '../with-client';

/** One question as a line: when asked, its id, the agent, its title. */
export function formatWatchLine(question: QuestionSummary): string {
  return [
    question.askedAt,
    question.workflowId,
    question.kind ?? 'question',
    question.agentId ?? '-',
    question.title,
  ].join('  ');
}

/** Reads `--interval SECONDS`: how often visibility is polled. */
function intervalOption(text: string | undefined): number {
  if (text === undefined) return 2_000;
  const seconds = Number(text);
  if (text.trim() === '' || !Number.isFinite(seconds) || seconds < 0.1 || seconds > 3_600) {
    throw new CliUsageError('--interval must be a number of seconds from 0.1 to 3600');
  }
  return Math.round(seconds * 1000);
}

/** Watches for new questions until SIGINT/SIGTERM. */
export async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parse(COMMAND_SPECS.watch, argv);
  if (positionals.length > 0) throw new CliUsageError(`watch takes no arguments (got ${positionals[0]})`);
  const json = values.json === true;
  const pollIntervalMs = intervalOption(stringOption(values, 'interval'));
  const settings = loadTemporalSettings();
  await withClient(async (client) => {
    let lastError = '';
    const watcher = new QuestionWatcher(client, {
      pollIntervalMs,
      onPollError: (error) => {
        // A server that stays down fails every poll: say so once, not every interval.
        const message = errorText(error);
        if (message !== lastError) process.stderr.write(`ask-user watch: ${message}\n`);
        lastError = message;
      },
    });
    const stopped = untilSignal();
    const subscription = watcher.subscribe((event) => {
      if (event.type !== 'question.pending') return;
      lastError = '';
      print(json ? JSON.stringify(event.question) : formatWatchLine(event.question));
    });
    try {
      // Ctrl-C during the first look at visibility (a slow or unreachable server) stops at once too.
      if ((await Promise.race([subscription.ready, stopped])) !== undefined) return;
      process.stderr.write(
        `ask-user watch: watching for new questions in namespace ${settings.namespace} at ${settings.address} (Ctrl-C to stop)\n`,
      );
      await stopped;
    } finally {
      subscription.close();
    }
  });
}
