/**
 * Plain-text renderings of a question for places humans read: the Temporal Web UI (static summary and
 * details), list titles, notifications. Deterministic and dependency-free.
 */
import { isRecommendedLabel } from '../answer/answer-rules';
import type { ApprovalDecision, ApprovalSubject, AskUserQuestion, QuestionRecord } from '../types';

const TITLE_LENGTH = 120;

function truncate(text: string, length: number): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > length ? `${oneLine.slice(0, length - 1)}…` : oneLine;
}

/** Quotes a value for a POSIX shell, so ids and texts with quotes still give a working command. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** One-line title: the first question's header, else its text; notes how many more questions follow. */
export function questionTitle(questions: readonly AskUserQuestion[]): string {
  const [first] = questions;
  if (first === undefined) return '(no questions)';
  const base = truncate(first.header ?? first.question, TITLE_LENGTH);
  return questions.length > 1 ? `${base} (+${questions.length - 1} more)` : base;
}

/** Markdown listing every question and its options, with how to answer from the Temporal CLI. */
export function questionDetails(questions: readonly AskUserQuestion[], workflowId: string): string {
  const lines: string[] = [];
  for (const question of questions) {
    const kind = question.options?.length
      ? question.multiSelect === true
        ? 'choose any'
        : 'choose one'
      : 'free-form';
    lines.push(
      `**${question.header ?? question.id}** (id \`${question.id}\`, ${kind})`,
      '',
      question.question,
      '',
    );
    for (const option of question.options ?? []) {
      const badge = isRecommendedLabel(option.label) ? ' ⭐' : '';
      const description = option.description === undefined ? '' : ` — ${option.description}`;
      lines.push(`- ${option.label}${badge}${description}`);
    }
    if (question.options?.length) lines.push('');
  }
  const example = JSON.stringify({
    answers: questions.map((question) => ({ id: question.id, selected: [], custom: '...' })),
  });
  lines.push(
    'Answer with `ask-user answer` or the Temporal CLI:',
    '',
    `    temporal workflow signal --workflow-id ${shellQuote(workflowId)} --name answer --input ${shellQuote(example)}`,
  );
  return lines.join('\n');
}

/** One-line title of an approval: `Approve <tool>`, with its description when it has one. */
export function approvalTitle(subject: Pick<ApprovalSubject, 'toolName' | 'description'>): string {
  const base = `Approve ${subject.toolName}`;
  return truncate(subject.description === undefined ? base : `${base}: ${subject.description}`, TITLE_LENGTH);
}

/** The input of an approval as the Web UI shows it: pretty JSON, cut at about 4,000 characters. */
const DETAILS_INPUT_LENGTH = 4_000;

/** Markdown showing the tool call and its input, with how to decide from the Temporal CLI. */
export function approvalDetails(subject: ApprovalSubject, workflowId: string): string {
  const input = JSON.stringify(subject.input, null, 2) ?? 'null';
  const shown =
    input.length > DETAILS_INPUT_LENGTH ? `${input.slice(0, DETAILS_INPUT_LENGTH)}\n… (cut)` : input;
  const lines = [`**${subject.toolName}** wants to run with this input:`, '', '```json', shown, '```', ''];
  if (subject.description !== undefined) lines.splice(1, 0, '', subject.description);
  lines.push(
    'Decide with `ask-user approve`, `ask-user deny` or the Temporal CLI:',
    '',
    `    temporal workflow update execute --workflow-id ${shellQuote(workflowId)} --name decide --input '{"type":"approve"}'`,
  );
  return lines.join('\n');
}

/**
 * A decision in words, as the agent receives it: `approved`, `approved with an edited input`, `rejected`,
 * `answered with a response`; an edit under a hook that runs only the model's own input
 * (`approval.onEdit: 'suggest'`) is `denied with a suggested input`.
 */
export function decisionWords(
  decision: Pick<ApprovalDecision, 'type'>,
  approval?: Pick<ApprovalSubject, 'onEdit'>,
): string {
  switch (decision.type) {
    case 'approve':
      return 'approved';
    case 'edit':
      return approval?.onEdit === 'suggest'
        ? 'denied with a suggested input'
        : 'approved with an edited input';
    case 'reject':
      return 'rejected';
    case 'respond':
      return 'answered with a response';
  }
}

/**
 * Why a question no longer takes answers, naming who answered or declined and when; `undefined` while it is
 * pending. The workflow's validators and the ops client give the same text. An approval names its decision.
 */
export function resolvedReason(record: QuestionRecord): string | undefined {
  const when = record.resolvedAt ?? 'an unknown time';
  if (record.approval !== undefined && record.status !== 'pending') {
    const { decision } = record;
    if (decision === undefined) return `the approval is already ${record.status} (since ${when})`;
    const who = decision.decidedBy ?? 'an unnamed reviewer';
    return record.status === 'expired'
      ? `the approval already expired at ${when} and was ${decisionWords(decision, record.approval)} by its policy`
      : `the approval was already ${decisionWords(decision, record.approval)} by ${who} at ${when}`;
  }
  switch (record.status) {
    case 'pending':
      return undefined;
    case 'answered':
      return `the question was already answered by ${record.answeredBy ?? 'an unnamed answerer'} at ${when}`;
    case 'declined':
      return `the question was already declined by ${record.declinedBy ?? 'an unnamed answerer'} at ${when}`;
    default:
      return `the question is already ${record.status} (since ${when})`;
  }
}
