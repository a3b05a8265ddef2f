/** `ask-user respond <id> --text TEXT`: the model reads the text in place of the tool's result. */
import { COMMAND_SPECS } from '../command-specs';
import { runDecision } from '../decision-command';
import { CliUsageError, stringOption } from '../parse';

/** Responds in place of the tool; `--text` is required. */
export async function run(argv: string[]): Promise<void> {
  await runDecision(COMMAND_SPECS.respond, argv, (values) => {
    const text = stringOption(values, 'text');
    if (text === undefined) throw new CliUsageError('respond needs --text TEXT');
    return { type: 'respond', text };
  });
}
