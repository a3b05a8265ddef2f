/**
 * `ask-user extend <id> <duration>`: moves a pending question's deadline, later (`2h`) or earlier (`-30m`); a
 * question with no deadline gets one, counted from now.
 */
import { QuestionClient, toWorkflowId } from '../../ops/question-client';
import { COMMAND_SPECS } from '../command-specs';
import { CliUsageError, parse, stringOption } from '../parse';
import { printJsonOr } from '../print';
import { withClient } from '../with-client';

/** Changes the deadline and prints the new one. */
export async function run(argv: string[]): Promise<void> {
  // `-30m` would read as options; it is the duration, wherever it stands (the spec's `literal`).
  const { values, positionals, literals: durations } = parse(COMMAND_SPECS.extend, argv);
  const [id, ...rest] = positionals;
  if (id === undefined) throw new CliUsageError('extend needs a question id (see `ask-user list`)');
  const given = [...rest, ...durations];
  if (given.length !== 1) {
    throw new CliUsageError('extend needs one duration after the id, such as 2h, 90m or -30m');
  }
  const by = given[0]!;
  const extendedBy = stringOption(values, 'as') ?? process.env.USER;
  const outcome = await withClient((client) => new QuestionClient(client).extendDeadline(id, by, extendedBy));
  printJsonOr(
    values.json === true,
    outcome,
    () => `Deadline of ${toWorkflowId(id)} is now ${outcome.expiresAt ?? 'unset'}.`,
  );
}
