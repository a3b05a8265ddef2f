/** `ask-user show <id>`: one question, its options and its outcome. */
import { QuestionClient, toWorkflowId } from '../../ops/question-client';
import { formatRecord } from '../format';
import { COMMAND_SPECS } from '../command-specs';
import { parse, requireId } from '../parse';
import { printJsonOr } from '../print';
import { withClient } from '../with-client';

/** Prints the question record. */
export async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parse(COMMAND_SPECS.show, argv);
  const id = requireId(positionals, 'show');
  const record = await withClient((client) => new QuestionClient(client).get(id));
  printJsonOr(values.json === true, record, () => formatRecord(toWorkflowId(id), record));
}
