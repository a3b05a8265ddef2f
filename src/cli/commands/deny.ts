/** `ask-user deny <id> [--reason TEXT]`: rejects a pending tool call; the model reads the reason. */
import { COMMAND_SPECS } from '../command-specs';
import { runDecision } from '../decision-command';
import { stringOption } from '../parse';

/** Rejects, with an optional reason. */
export async function run(argv: string[]): Promise<void> {
  await runDecision(
    COMMAND_SPECS.deny,
    argv,
    (values) => {
      const reason = stringOption(values, 'reason');
      return reason === undefined ? { type: 'reject' } : { type: 'reject', reason };
    },
    (workflowId) => `Denied ${workflowId}.`,
  );
}
