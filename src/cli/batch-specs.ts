/**
 * The options of the batch forms of `answer`, `approve` and `deny` (`--all` with filters), and the spec of
 * `ask-user audit`. Plain data, like `command-specs.ts`, which lists them; it imports nothing at run time.
 */
import type { CommandSpec, OptionSpec } from './command-spec-types';

/** `--all` and the filters that narrow it: the pending questions one batch takes. */
export const BATCH_OPTIONS = {
  all: {
    type: 'boolean',
    description: 'act on every pending one the filters select (at most 1000), instead of one <id>',
  },
  tool: { type: 'string', placeholder: 'NAME', description: 'with --all: only approvals of this tool' },
  agent: { type: 'string', placeholder: 'ID', description: 'with --all: only those this agent asked' },
  'same-as': {
    type: 'string',
    placeholder: 'ID',
    description: 'with --all: only questions asking the same questions as this one',
  },
} as const satisfies Record<string, OptionSpec>;

/** What help says of a batch: each item recorded once or refused with why, and the exit code. */
export const BATCH_DETAIL =
  'With --all, each selected question is recorded once, or refused with the reason (already resolved by ' +
  'whom, audience, invalid); one line each, then the counts. Exit 1 when any was refused.';

export const AUDIT_SPEC = {
  name: 'audit',
  summary: 'export the record of every request asked since a time, one line each',
  usage: 'export',
  details: [
    'Reads the server’s histories (no worker needed) a page at a time and writes as it goes: who asked, what ' +
      'was asked, each answer, decision and decline with who and when, the deadline and its moves, reminders ' +
      'and escalation, and how each request ended.',
  ],
  options: {
    since: {
      type: 'string',
      placeholder: 'TIME',
      description: 'requests asked at or after this time: an ISO-8601 date or time, or a duration ago (7d)',
    },
    format: { type: 'string', placeholder: 'FORMAT', description: 'jsonl or csv', default: 'jsonl' },
  },
} as const satisfies CommandSpec;
