/** `ask-user deny <id> [--reason TEXT] [--stop]`: rejects a pending tool call; the model reads the reason. */
import { definedFields } from '../../common';
import { COMMAND_SPECS } from '../command-specs';
import { runDecision } from '../decision-command';
import { CliUsageError, stringOption } from '../parse';

/**
 * Rejects, with an optional reason, and with `--stop` asks the agent to end its run; with `--all`, every
 * pending approval the filters select (a batch stops no runs: `--stop` is refused there).
 */
export async function run(argv: string[]): Promise<void> {
  await runDecision(
    COMMAND_SPECS.deny,
    argv,
    (values) => ({
      type: 'reject',
      ...definedFields({
        reason: stringOption(values, 'reason'),
        stop: values.stop === true ? true : undefined,
      }),
    }),
    (values) => {
      if (values.stop === true) {
        throw new CliUsageError('--stop: stops the run of one denied call; give its id instead of --all');
      }
      return { action: 'deny', ...definedFields({ reason: stringOption(values, 'reason') }) };
    },
  );
}
