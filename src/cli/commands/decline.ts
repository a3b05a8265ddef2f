/** `ask-user decline <id>`: declines a pending question; the waiting agent gets `ASK_CANCELLED`. */
import { definedFields } from '../../common';
import { QuestionClient, toWorkflowId } from '../../ops/question-client';
import { COMMAND_SPECS } from '../command-specs';
import { actingAs, parse, requireId, stringOption } from '../parse';
import { printJsonOr } from '../print';
import { withClient } from '../with-client';

/** Declines, with an optional reason the agent sees. */
export async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parse(COMMAND_SPECS.decline, argv);
  const id = requireId(positionals, 'decline');
  const { name, groups } = actingAs(values);
  const declined = definedFields({ reason: stringOption(values, 'reason'), declinedBy: name, groups });
  const record = await withClient((client) => new QuestionClient(client).decline(id, declined));
  printJsonOr(values.json === true, record, () => `Declined ${toWorkflowId(id)}.`);
}
