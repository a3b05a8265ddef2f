/** `ask-user grants [--agent ID] [--status active|revoked|expired] [--json]`: the standing grants, newest first. */
import { QuestionClient } from '../../ops/question-client';
import type { ListedGrant } from '../../ops/grant-client';
import type { GrantStatus } from '../../question/grant-definitions';
import { COMMAND_SPECS } from '../command-specs';
import { printable } from '../format';
import { CliUsageError, parse, stringOption } from '../parse';
import { printJsonOr } from '../print';
import { withClient } from '../with-client';

const STATUSES: readonly GrantStatus[] = ['active', 'revoked', 'expired'];

/** What a grant covers, in words: the tool, and the input and session it is limited to. */
export function grantScopeText(
  grant: Pick<ListedGrant, 'toolName' | 'inputSchema' | 'input' | 'sessionId'>,
): string {
  const parts = [grant.toolName];
  if (grant.inputSchema !== undefined) parts.push(`input matching ${JSON.stringify(grant.inputSchema)}`);
  if (grant.input !== undefined) parts.push(`input ${JSON.stringify(grant.input)}`);
  if (grant.sessionId !== undefined) parts.push(`session ${grant.sessionId}`);
  return printable(parts.join(', '));
}

/** One grant, one paragraph: id and status, scope, who granted it, until when, its uses. */
export function grantText(grant: ListedGrant): string {
  const ended = grant.status === 'revoked' ? `, revoked by ${grant.revokedBy} at ${grant.revokedAt}` : '';
  const used = grant.uses === 0 ? 'not used' : `used ${grant.uses}× (last ${grant.lastUsedAt})`;
  return [
    `${grant.id}  ${grant.status}  agent ${printable(grant.agentId)}`,
    `  covers ${grantScopeText(grant)}`,
    `  granted by ${printable(grant.grantedBy)} at ${grant.grantedAt}, until ${grant.expiresAt}${ended}; ${used}`,
    ...(grant.note === undefined ? [] : [`  note: ${printable(grant.note)}`]),
  ].join('\n');
}

export async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parse(COMMAND_SPECS.grants, argv);
  if (positionals.length > 0)
    throw new CliUsageError(`grants takes no arguments (got ${positionals.join(' ')})`);
  const status = stringOption(values, 'status');
  if (status !== undefined && !(STATUSES as readonly string[]).includes(status)) {
    throw new CliUsageError(`--status ${JSON.stringify(status)}: must be one of ${STATUSES.join(', ')}`);
  }
  const agentId = stringOption(values, 'agent');
  const grants = await withClient(async (client) =>
    new QuestionClient(client).grants.list({
      ...(agentId === undefined ? {} : { agentId }),
      ...(status === undefined ? {} : { status: status as GrantStatus }),
    }),
  );
  printJsonOr(values.json === true, grants, () =>
    grants.length === 0 ? 'No grants.' : grants.map(grantText).join('\n\n'),
  );
}
