/** `ask-user approve <id> [--input JSON]`: approves a pending tool call, as it is or with an edited input. */
import { COMMAND_SPECS } from '../command-specs';
import { runDecision } from '../decision-command';
import { CliUsageError, stringOption } from '../parse';

/**
 * Approves; `--input` makes it an edit, checked against the tool's input schema. An edit the agent's hook cannot
 * run (the SDKs' own approval flows) is reported as what the agent receives: a denial suggesting the input.
 * With `--all`, every pending approval the filters select is approved as asked.
 */
export async function run(argv: string[]): Promise<void> {
  await runDecision(
    COMMAND_SPECS.approve,
    argv,
    (values) => {
      const text = stringOption(values, 'input');
      if (text === undefined) return { type: 'approve' };
      try {
        return { type: 'edit', input: JSON.parse(text) as unknown };
      } catch (error) {
        throw new CliUsageError(`--input is not valid JSON: ${(error as Error).message}`, { cause: error });
      }
    },
    (values) => {
      // One edited input for calls that each asked their own would approve what none of them asked.
      if (values.input !== undefined)
        throw new CliUsageError('approve --all approves as asked; --input is for one <id>');
      return { action: 'approve' };
    },
  );
}
