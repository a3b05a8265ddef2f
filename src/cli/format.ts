/**
 * Human-readable renderings for the CLI.
 *
 * Question text comes from a model, and anyone with namespace access can start a question: control characters
 * in it (terminal escape sequences that move the cursor, recolour or rewrite earlier lines) are shown as
 * `\u{..}` escapes, never sent to the terminal as they are.
 */
import { progressWords, rejectionWords } from '../answer/two-person-rule';
import { isRecommendedLabel } from '../answer/answer-rules';
import type { QuestionSummary } from '../ops/question-client';
import type { AnswerAwaitingWorker, ApprovalDecision, ApprovalDecisionType, QuestionRecord } from '../types';

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

/** A decided approval's status in the list: what was decided, in one word. */
const DECISION_STATUS: Record<ApprovalDecisionType, string> = {
  approve: 'approved',
  edit: 'edited',
  reject: 'rejected',
  respond: 'responded',
};

/**
 * A table of questions and approvals, one per line. KIND tells them apart (a title is model-written, so it
 * cannot); a decided approval's STATUS is its decision (`approved`, `edited`, `rejected`, `responded`).
 */
export function formatSummaries(summaries: readonly QuestionSummary[]): string {
  if (summaries.length === 0) return 'No questions.';
  const rows = summaries.map((summary) => [
    printableLine(summary.workflowId),
    summary.kind ?? 'question',
    summary.decision === undefined ? summary.status : DECISION_STATUS[summary.decision],
    summary.askedAt,
    printableLine(summary.agentId ?? '-'),
    printableLine(summary.title),
  ]);
  const header = ['ID', 'KIND', 'STATUS', 'ASKED', 'AGENT', 'QUESTION'];
  const last = header.length - 1;
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (column === last ? 0 : row[column]!.length))),
  );
  const line = (cells: string[]): string =>
    cells.map((cell, column) => (column === last ? cell : cell.padEnd(widths[column]!))).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}

/** `value` as indented JSON lines, each prefixed with `indent`. */
function jsonLines(value: unknown, indent: string): string[] {
  return (JSON.stringify(value, null, 2) ?? 'null').split('\n').map((line) => `${indent}${line}`);
}

/** The lines of an approval: the tool call, its original input and, once decided, the decision. */
function approvalLines(record: QuestionRecord): string[] {
  const subject = record.approval!;
  const lines = ['', `approval of ${subject.toolName}`];
  if (subject.description !== undefined) lines.push(`  ${subject.description}`);
  lines.push('input:', ...jsonLines(subject.input, '  '));
  if (subject.requestedBy !== undefined) lines.push(`requested by ${subject.requestedBy}`);
  const unused = record.grantNotUsed;
  if (unused !== undefined) lines.push(`standing grant ${unused.id} not used: ${unused.reason}`);
  lines.push(...approvalsLines(record));
  const decision = record.decision;
  if (decision !== undefined) lines.push('', ...decisionLines(decision));
  return lines;
}

/**
 * Under the two-person rule: "1 of 2 approvals" and each approval given, with who and when; the same for
 * rejections where the operator counts them.
 */
function approvalsLines(record: QuestionRecord): string[] {
  const closed = record.status === 'pending' ? '' : ' (closed)';
  const lines: string[] = [];
  if (record.requiredApprovals !== undefined) {
    lines.push('', `${progressWords(record)}${closed}`);
    for (const approval of record.approvals ?? []) {
      const edited = approval.type === 'edit' ? ' with an edited input' : '';
      lines.push(`  approved${edited} by ${approval.decidedBy} at ${approval.decidedAt}`);
    }
  }
  if (record.requiredRejections !== undefined) {
    lines.push('', `${rejectionWords(record)}${closed}`);
    for (const rejection of record.rejections ?? []) {
      const why = rejection.reason ?? rejection.text;
      const verb = rejection.type === 'respond' ? 'responded' : 'rejected';
      lines.push(`  ${verb} by ${rejection.decidedBy} at ${rejection.decidedAt}${why ? `: ${why}` : ''}`);
    }
  }
  return lines;
}

/** A decision with who and when: the edited input of an edit, the reason of a rejection, a response's text. */
function decisionLines(decision: ApprovalDecision): string[] {
  const by = `by ${decision.decidedBy ?? 'an unnamed reviewer'} at ${decision.decidedAt}`;
  switch (decision.type) {
    case 'approve':
      return [`approved ${by}`];
    case 'edit':
      return [`approved with an edited input ${by}:`, ...jsonLines(decision.input, '  ')];
    case 'reject':
      return [`rejected ${by}${decision.reason ? `: ${decision.reason}` : ''}`];
    case 'respond':
      return [`answered with a response ${by}:`, `  ${decision.text}`];
  }
}

/** A question with its options, or an approval with its input, and, once resolved, its outcome. */
export function formatRecord(workflowId: string, record: QuestionRecord): string {
  const lines = [`${workflowId}  [${record.status}]`, `asked ${record.askedAt}`];
  if (record.noWorker !== undefined) lines.push(noWorkerLine(record.noWorker.taskQueue));
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
  if (record.approval !== undefined) lines.push(...approvalLines(record));
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
  if (record.unvalidatedAnswers?.length) {
    lines.push('', 'answers waiting for a worker to validate them:');
    for (const waiting of record.unvalidatedAnswers) {
      const entry = `${waiting.receivedAt} ${waiting.answeredBy ?? ''}${answerIdText(waiting.answerId)}`;
      lines.push(`  ${entry.replace(/\s+/g, ' ')}`);
    }
  }
  if (record.rejectedAnswers.length > 0) {
    lines.push('', 'ignored answers:');
    for (const rejected of record.rejectedAnswers) {
      const entry = `${rejected.receivedAt} ${rejected.answeredBy ?? ''}${answerIdText(rejected.answerId)} ${rejected.reason}`;
      lines.push(`  ${entry.replace(/\s+/g, ' ')}`);
    }
  }
  return printable(lines.join('\n'));
}

function answerIdText(answerId: string | undefined): string {
  return answerId === undefined ? '' : ` (answer ${answerId})`;
}

/** What `show` and `answer` say when no worker runs a question: answers are kept, and wait for one. */
export function noWorkerLine(taskQueue: string): string {
  return `no worker is running this question (none answered it; task queue ${taskQueue}): answers are recorded and wait for a worker to validate them`;
}

/** What `answer` says of an answer no worker took in time: recorded, and waiting for one to validate it. */
export function awaitingWorkerText(workflowId: string, waiting: AnswerAwaitingWorker): string {
  return [
    `Recorded an answer to ${workflowId} (answer ${waiting.answerId}); no worker took it, so it waits for a worker on task queue ${waiting.taskQueue} to validate it.`,
    `\`ask-user show ${workflowId}\` tells whether it was taken or refused.`,
  ].join('\n');
}
