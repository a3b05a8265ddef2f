/**
 * `ask-user grant --agent ID --tool NAME --expire-after 8h [--input-schema JSON | --input JSON] [--session ID]
 *   [--group GROUP]...`,
 * or `ask-user grant <approval id> --expire-after 8h [...]`: approve that pending call and grant its agent its tool.
 */
import { QuestionClient, toWorkflowId } from '../../ops/question-client';
import type { GrantScope } from '../../ops/grant-client';
import type { StandingGrant } from '../../question/grant-definitions';
import { definedFields } from '../../common';
import { COMMAND_SPECS } from '../command-specs';
import { CliUsageError, actingAs, parse, stringOption, type Options } from '../parse';
import { printJsonOr } from '../print';
import { withClient } from '../with-client';
import { grantScopeText } from './grants';

function jsonOption(values: Options, name: string): unknown {
  const text = stringOption(values, name);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new CliUsageError(`--${name} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
}

/** The scope and expiry the options give, and who grants. */
function scopeOf(values: Options): GrantScope {
  const { name: grantedBy, groups } = actingAs(values);
  if (grantedBy === undefined) throw new CliUsageError('--as NAME: who grants (no $USER to default to)');
  return {
    grantedBy,
    ...definedFields({
      grantedByGroups: groups,
      inputSchema: jsonOption(values, 'input-schema') as GrantScope['inputSchema'],
      input: jsonOption(values, 'input'),
      sessionId: stringOption(values, 'session'),
      expireAfter: stringOption(values, 'expire-after'),
      expiresAt: stringOption(values, 'expires-at'),
      note: stringOption(values, 'note'),
    }),
  };
}

function grantedText(grant: StandingGrant): string {
  return `Granted ${grant.id}: ${grantScopeText(grant)} for agent ${grant.agentId} until ${grant.expiresAt}.`;
}

export async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parse(COMMAND_SPECS.grant, argv);
  if (positionals.length > 1)
    throw new CliUsageError(`grant takes at most one approval id (got ${positionals.join(' ')})`);
  const scope = scopeOf(values);
  const [approvalId] = positionals;
  const agentId = stringOption(values, 'agent');
  const toolName = stringOption(values, 'tool');
  if (approvalId !== undefined) {
    if (agentId !== undefined || toolName !== undefined)
      throw new CliUsageError(
        '--agent and --tool come from the approval: give them only without an approval id',
      );
    const workflowId = toWorkflowId(approvalId);
    const { grant, notGranted } = await withClient(async (client) =>
      new QuestionClient(client).grants.approveAndGrant(
        workflowId,
        { type: 'approve', ...definedFields({ decidedBy: scope.grantedBy, groups: scope.grantedByGroups }) },
        scope,
      ),
    );
    if (grant === undefined) {
      // Counted toward the two-person rule, the call still pending: the approval stands, the grant was not made.
      printJsonOr(values.json === true, { workflowId, notGranted }, () => `${workflowId}: ${notGranted}.`);
      process.exitCode = 1;
      return;
    }
    printJsonOr(values.json === true, grant, () => `Approved ${workflowId}. ${grantedText(grant)}`);
    return;
  }
  if (agentId === undefined || toolName === undefined)
    throw new CliUsageError('grant needs --agent ID and --tool NAME, or the id of a pending approval');
  const grant = await withClient(async (client) =>
    new QuestionClient(client).grants.grant({ ...scope, agentId, toolName }),
  );
  printJsonOr(values.json === true, grant, () => grantedText(grant));
}
