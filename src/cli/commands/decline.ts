/** `ask-user decline <id>`: declines a pending question; the waiting agent gets `ASK_CANCELLED`. */
import { QuestionClient, toWorkflowId } from '../../ops/question-client';
import { COMMAND_SPECS } from '../command-specs';
import { parse, requireId, stringList, stringOption } from '../parse';
import { printJsonOr } from '../print';
import { withClient } from '../with-client';

/** Declines, with an optional reason the agent sees. */
export async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parse(COMMAND_SPECS.decline, argv);
  const id = requireId(positionals, 'decline');
  const reason = stringOption(values, 'reason');
  const declinedBy = stringOption(values, 'as') ?? process.env.USER;
  const groups = stringList(values, 'group');
  const record = await withClient((client) =>
    new QuestionClient(client).decline(id, {
      ...(reason === undefined ? {} : { reason }),
      ...(declinedBy === undefined ? {} : { declinedBy }),
      ...(groups.length === 0 ? {} : { groups }),
    }),
  );
  printJsonOr(values.json === true, record, () => `Declined ${toWorkflowId(id)}.`);
}
