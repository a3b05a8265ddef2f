/**
 * Human-readable renderings for the CLI.
 *
 * Question text comes from a model, and anyone with namespace access can start a question: control characters
 * in it (terminal escape sequences that move the cursor, recolour or rewrite earlier lines) are shown as
 * `\u{..}` escapes, never sent to the terminal as they are.
 */
import { isRecommendedLabel } from '../answer/answer-rules';
import type { QuestionSummary } from '../ops/question-client';
import type { QuestionRecord } from '../types';

// C0 and C1 control characters, DEL, and the bidirectional overrides that can reorder what a line shows.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** `text` with control characters shown as escapes; tabs and line breaks kept. */
export function printable(text: string): string {
  return text.replace(CONTROL, (character) => `\\u{${character.charCodeAt(0).toString(16)}}`);
}

/** `text` on one line: {@link printable}, with line breaks and tabs shown as spaces. */
function printableLine(text: string): string {
  return printable(text).replace(/[\t\n]/g, ' ');
}

/** A table of questions, one per line. */
export function formatSummaries(summaries: readonly QuestionSummary[]): string {
  if (summaries.length === 0) return 'No questions.';
  const rows = summaries.map((summary) => [
    printableLine(summary.workflowId),
    summary.status,
    summary.askedAt,
    printableLine(summary.agentId ?? '-'),
    printableLine(summary.title),
  ]);
  const header = ['ID', 'STATUS', 'ASKED', 'AGENT', 'QUESTION'];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (column === 4 ? 0 : row[column]!.length))),
  );
  const line = (cells: string[]): string =>
    cells.map((cell, column) => (column === 4 ? cell : cell.padEnd(widths[column]!))).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}

/** A question with its options and, once resolved, its outcome. */
export function formatRecord(workflowId: string, record: QuestionRecord): string {
  const lines = [`${workflowId}  [${record.status}]`, `asked ${record.askedAt}`];
  if (record.agent !== undefined) {
    lines.push(
      `agent ${record.agent.id}${record.agent.sessionId ? ` (session ${record.agent.sessionId})` : ''}`,
    );
  }
  if (record.toolCallId !== undefined) lines.push(`tool call ${record.toolCallId}`);
  if (record.expiresAt !== undefined) {
    lines.push(`${record.status === 'pending' ? 'expires' : 'deadline'} ${record.expiresAt}`);
  }
  for (const change of record.deadlineChanges ?? []) {
    const who = change.extendedBy ?? 'an unnamed operator';
    lines.push(`  moved from ${change.from ?? '(none)'} by ${who} at ${change.changedAt}`);
  }
  if (record.remindersSent !== undefined) lines.push(`reminders sent ${record.remindersSent}`);
  if (record.escalatedAt !== undefined) lines.push(`escalated ${record.escalatedAt}`);
  for (const question of record.questions) {
    const kind = question.options?.length
      ? question.multiSelect
        ? 'choose any'
        : 'choose one'
      : 'free-form';
    lines.push(
      '',
      `[${question.id}] ${question.header ? `${question.header}: ` : ''}${question.question} (${kind})`,
    );
    for (const option of question.options ?? []) {
      const badge = isRecommendedLabel(option.label) ? '  ★ recommended' : '';
      lines.push(`  - ${option.label}${badge}${option.description ? `: ${option.description}` : ''}`);
    }
  }
  if (record.answer !== undefined) {
    lines.push('', `answered by ${record.answeredBy ?? 'an unnamed answerer'} at ${record.resolvedAt}:`);
    for (const item of record.answer.answers) {
      const value =
        item.custom !== undefined
          ? JSON.stringify(item.custom)
          : item.selected.length
            ? item.selected.join(', ')
            : '(skipped)';
      lines.push(`  ${item.id}: ${value}`);
    }
  }
  if (record.status === 'declined') {
    lines.push(
      '',
      `declined by ${record.declinedBy ?? 'an unnamed answerer'} at ${record.resolvedAt}${record.declineReason ? `: ${record.declineReason}` : ''}`,
    );
  }
  if (record.rejectedAnswers.length > 0) {
    lines.push('', 'ignored answers:');
    for (const rejected of record.rejectedAnswers) {
      const entry = `${rejected.receivedAt} ${rejected.answeredBy ?? ''} ${rejected.reason}`;
      lines.push(`  ${entry.replace(/\s+/g, ' ')}`);
    }
  }
  return printable(lines.join('\n'));
}
