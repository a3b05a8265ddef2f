/**
 * Plain-text renderings of a question for places humans read: the Temporal Web UI (static summary and
 * details), list titles, notifications. Deterministic and dependency-free.
 */
import { isRecommendedLabel } from '../answer/answer-rules';
import type { AskUserQuestion, QuestionRecord } from '../types';

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

/**
 * Why a question no longer takes answers, naming who answered or declined and when; `undefined` while it is
 * pending. The workflow's validators and the ops client give the same text.
 */
export function resolvedReason(record: QuestionRecord): string | undefined {
  const when = record.resolvedAt ?? 'an unknown time';
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
