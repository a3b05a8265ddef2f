/** `ask-user answer <id>` in a terminal with no flags: asks each question at the prompt. */
import readline from 'node:readline';
import { isRecommendedLabel } from '../answer/answer-rules';
import { printable } from './format';
import type { AskUserQuestion, AskUserQuestionAnswerItem, QuestionRecord } from '../types';

function promptHint(question: AskUserQuestion): string {
  if (!question.options?.length) return 'your answer (empty to skip)';
  return question.multiSelect === true
    ? 'numbers, comma-separated, or your own answer (empty to skip)'
    : 'a number, or your own answer (empty to skip)';
}

/** Reads one reply: option numbers become labels, any other text is a custom answer, nothing skips. */
function readReply(question: AskUserQuestion, reply: string): AskUserQuestionAnswerItem {
  const options = question.options ?? [];
  const text = reply.trim();
  if (text === '') return { id: question.id, selected: [] };
  const parts = text.split(/[\s,]+/).filter((part) => part !== '');
  const numbers = parts.map(Number);
  const allOptionNumbers = parts.every(
    (part, index) => /^\d+$/.test(part) && numbers[index]! >= 1 && numbers[index]! <= options.length,
  );
  if (options.length > 0 && allOptionNumbers) {
    return { id: question.id, selected: numbers.map((number) => options[number - 1]!.label) };
  }
  return { id: question.id, selected: [], custom: text };
}

/**
 * Prompts for every question: option numbers (comma-separated for multi-select), or any other text as a
 * custom answer, or nothing to skip. Lines typed (or pasted) ahead of a prompt are kept for it.
 */
export async function promptForAnswers(
  record: QuestionRecord,
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
): Promise<AskUserQuestionAnswerItem[]> {
  const prompt = readline.createInterface({ input, terminal: false });
  // The line iterator buffers lines that arrive before they are asked for; `question()` would drop them.
  const lines = prompt[Symbol.asyncIterator]();
  try {
    const items: AskUserQuestionAnswerItem[] = [];
    for (const question of record.questions) {
      output.write(printable(`\n${question.header ? `${question.header}\n` : ''}${question.question}\n`));
      for (const [index, option] of (question.options ?? []).entries()) {
        const badge = isRecommendedLabel(option.label) ? '  ★ recommended' : '';
        const description = option.description ? ` — ${option.description}` : '';
        output.write(printable(`  ${index + 1}. ${option.label}${badge}${description}\n`));
      }
      output.write(`${promptHint(question)}> `);
      const line = await lines.next();
      if (line.done === true) throw new Error('input ended before every question was answered');
      items.push(readReply(question, String(line.value)));
    }
    return items;
  } finally {
    prompt.close();
  }
}
