/** The audit export's formats: JSON lines (one object per request), or CSV with nested values as JSON cells. */
import type { AuditLine } from './audit-export';

/** The formats of the export. */
export const AUDIT_FORMATS = ['jsonl', 'csv'] as const;
export type AuditFormat = (typeof AUDIT_FORMATS)[number];

/** The CSV columns, in order; nested values are JSON in their cell. */
const CSV_COLUMNS = [
  'workflowId',
  'kind',
  'status',
  'askedAt',
  'agentId',
  'sessionId',
  'toolCallId',
  'asked',
  'audience',
  'firstDeadline',
  'deadline',
  'deadlineChanges',
  'remindersSent',
  'reminderTimes',
  'escalatedAt',
  'actions',
  'refusedAnswers',
  'resolvedAt',
  'resolvedBy',
  'outcome',
] as const;

/** One CSV cell (RFC 4180): quoted when it holds a comma, a quote or a line break. */
function csvCell(value: unknown): string {
  if (value === undefined) return '';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** What the export writes before its lines: the CSV header row, nothing for JSON lines. */
export function auditHeader(format: AuditFormat): string {
  return format === 'csv' ? `${CSV_COLUMNS.join(',')}\r\n` : '';
}

/** One line of the export, with its line ending. */
export function auditText(line: AuditLine, format: AuditFormat): string {
  if (format === 'jsonl') return `${JSON.stringify(line)}\n`;
  const cells: Partial<Record<(typeof CSV_COLUMNS)[number], unknown>> = {
    ...line,
    asked: line.approval ?? line.questions,
    outcome:
      line.answer ??
      line.decision ??
      (line.declineReason === undefined ? undefined : { reason: line.declineReason }),
  };
  return `${CSV_COLUMNS.map((column) => csvCell(cells[column])).join(',')}\r\n`;
}
