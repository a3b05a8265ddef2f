/** `ask-user deny <id> [--reason TEXT]`: rejects a pending tool call; the model reads the reason. */
import { definedFields } from '../../common';
import { COMMAND_SPECS } from '../command-specs';
import { runDecision } from '../decision-command';
import { stringOption } from '../parse';

/** Rejects, with an optional reason; with `--all`, every pending approval the filters select. */
export async function run(argv: string[]): Promise<void> {
  await runDecision(
    COMMAND_SPECS.deny,
    argv,
    (values) => ({ type: 'reject', ...definedFields({ reason: stringOption(values, 'reason') }) }),
    (values) => ({ action: 'deny', ...definedFields({ reason: stringOption(values, 'reason') }) }),
  );
}
