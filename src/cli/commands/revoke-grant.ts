/** `ask-user revoke-grant <grant id> [--as NAME]`: the grant covers no call from now on. */
import { QuestionClient } from '../../ops/question-client';
import { COMMAND_SPECS } from '../command-specs';
import { CliUsageError, parse, stringOption } from '../parse';
import { printJsonOr } from '../print';
import { withClient } from '../with-client';

export async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parse(COMMAND_SPECS['revoke-grant'], argv);
  const [id, ...extra] = positionals;
  if (id === undefined || extra.length > 0) throw new CliUsageError('revoke-grant takes one grant id');
  const revokedBy = stringOption(values, 'as') ?? process.env.USER;
  if (revokedBy === undefined) throw new CliUsageError('--as NAME: who revokes (no $USER to default to)');
  const grant = await withClient(async (client) => new QuestionClient(client).grants.revoke(id, revokedBy));
  printJsonOr(values.json === true, grant, () => `Revoked ${grant.id}: it covers no call from now on.`);
}
