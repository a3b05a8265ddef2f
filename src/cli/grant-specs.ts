/**
 * The commands of standing grants, declared as plain data for `command-specs.ts`: `grants` (list), `grant`
 * (make one, alone or while approving a pending call) and `revoke-grant`.
 */
import type { CommandSpec } from './command-spec-types';

/** `ask-user grants [--agent ID] [--status S] [--json]`. */
export const GRANTS_SPEC = {
  name: 'grants',
  summary: 'list standing grants: active, revoked and expired, with their scope and uses',
  usage: '',
  details: [
    'Finds the agents with grants in visibility, then reads each agent’s grants from its grants workflow (a ' +
      'worker must run). With --agent, reads that agent’s grants only.',
  ],
  options: {
    agent: { type: 'string', placeholder: 'ID', description: 'only this agent’s grants' },
    status: { type: 'string', placeholder: 'STATUS', description: 'only active, revoked or expired grants' },
    json: { type: 'boolean', description: 'print the grants as JSON' },
  },
} as const satisfies CommandSpec;

/** `ask-user grant --agent ID --tool NAME --expire-after 8h [...]`, or `ask-user grant <approval id> ...`. */
export const GRANT_SPEC = {
  name: 'grant',
  summary: 'grant an agent a tool until an expiry: its covered calls are approved with no person',
  usage: '[<approval id>]',
  details: [
    'With an approval id, approves that pending call and grants its agent its tool for exactly that input ' +
      'unless --input-schema or --input says otherwise (approve and grant); ' +
      'without one, --agent and --tool say what is granted. An expiry is required: --expire-after or ' +
      '--expires-at, within the operator’s maxExpireAfter (ASK_USER_GRANT_POLICY on the worker).',
    'The grant records who grants (--as) and their groups (--group), and decides only a call whose audience ' +
      'that person could decide themselves. The CLI authenticates no one: as with --as, what --group says is ' +
      'taken as said.',
    'Scope the grant with --input-schema (a JSON Schema the call’s input must match) or --input (exactly this ' +
      'JSON input), and with --session (only calls of that session).',
  ],
  options: {
    agent: { type: 'string', placeholder: 'ID', description: 'the agent whose calls it covers' },
    tool: { type: 'string', placeholder: 'NAME', description: 'the tool it covers' },
    'input-schema': {
      type: 'string',
      placeholder: 'JSON',
      description: 'only input matching this JSON Schema',
    },
    input: { type: 'string', placeholder: 'JSON', description: 'only exactly this input' },
    session: { type: 'string', placeholder: 'ID', description: 'only calls of this session' },
    'expire-after': {
      type: 'string',
      placeholder: 'DURATION',
      description: 'how long it lasts: 30m, 8h, 7d',
    },
    'expires-at': { type: 'string', placeholder: 'TIME', description: 'until when it lasts, ISO-8601' },
    note: { type: 'string', placeholder: 'TEXT', description: 'why, for whoever reads the list' },
    as: { type: 'string', placeholder: 'NAME', description: 'who grants', default: '$USER' },
    group: {
      type: 'string',
      multiple: true,
      placeholder: 'GROUP',
      description:
        'a group you grant for: the grant decides only calls whose audience your own decision meets',
    },
    json: { type: 'boolean', description: 'print the grant as JSON' },
  },
} as const satisfies CommandSpec;

/** `ask-user revoke-grant <grant id>`. */
export const REVOKE_GRANT_SPEC = {
  name: 'revoke-grant',
  summary: 'revoke a standing grant: it covers no call from now on',
  usage: '<grant id>',
  details: ['<grant id> is the id `ask-user grants` shows (`<agent id>/<12 hex digits>`).'],
  options: {
    as: { type: 'string', placeholder: 'NAME', description: 'who revokes', default: '$USER' },
    json: { type: 'boolean', description: 'print the revoked grant as JSON' },
  },
} as const satisfies CommandSpec;
