/**
 * `ask-user audit export --since TIME [--format jsonl|csv]`: every request asked since TIME, one line each, to
 * stdout, written as each page of histories is read (see ops/audit-export.ts), so a large export holds one page
 * in memory.
 */
import { once } from 'node:events';
import { auditLines, auditSince } from '../../ops/audit-export';
import { AUDIT_FORMATS, auditHeader, auditText, type AuditFormat } from '../../ops/audit-format';
import { COMMAND_SPECS } from '../command-specs';
import { CliUsageError, parse, stringOption } from '../parse';
import { withClient } from '../with-client';

/** `--since`: an ISO-8601 date or time, or a duration ago (`7d`, `12h`). */
export function sinceOf(text: string | undefined, now = Date.now()): Date {
  if (text === undefined) {
    throw new CliUsageError('audit export needs --since TIME (a date such as 2026-12-01, or 7d)');
  }
  const since = auditSince(text, now);
  if (since === undefined) {
    throw new CliUsageError(
      `--since ${JSON.stringify(text)}: must be an ISO-8601 date or time (2026-12-01, 2026-12-01T09:00:00Z) or a duration ago (7d)`,
    );
  }
  return since;
}

/** Writes `text` to stdout, waiting for it to drain when its buffer is full: memory stays bounded. */
async function write(text: string): Promise<void> {
  if (!process.stdout.write(text)) await once(process.stdout, 'drain');
}

export async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parse(COMMAND_SPECS.audit, argv);
  const [action, ...extra] = positionals;
  if (action !== 'export' || extra.length > 0) {
    throw new CliUsageError(`audit takes one action, export (got ${positionals.join(' ') || 'none'})`);
  }
  const format = stringOption(values, 'format') ?? 'jsonl';
  if (!(AUDIT_FORMATS as readonly string[]).includes(format)) {
    throw new CliUsageError(`--format ${JSON.stringify(format)}: must be one of ${AUDIT_FORMATS.join(', ')}`);
  }
  const since = sinceOf(stringOption(values, 'since'));
  await withClient(async (client) => {
    await write(auditHeader(format as AuditFormat));
    for await (const line of auditLines(client, { since }))
      await write(auditText(line, format as AuditFormat));
  });
}
