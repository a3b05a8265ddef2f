/** `ask-user answer <id>` in a terminal with no flags: asks each question at the prompt. */
import readline from 'node:readline/promises';
import type { AskUserQuestionAnswerItem, QuestionRecord } from '../types';

/**
 * Prompts for every question: option numbers (comma-separated for multi-select), or any other text as a
 * custom answer, or nothing to skip.
 */
export async function promptForAnswers(
  record: QuestionRecord,
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
): Promise<AskUserQuestionAnswerItem[]> {
  const prompt = readline.createInterface({ input, output });
  try {
    const items: AskUserQuestionAnswerItem[] = [];
    for (const question of record.questions) {
      const options = question.options ?? [];
      output.write(`\n${question.header ? `${question.header}\n` : ''}${question.question}\n`);
      options.forEach((option, index) =>
        output.write(
          `  ${index + 1}. ${option.label}${option.description ? ` — ${option.description}` : ''}\n`,
        ),
      );
      const hint =
        options.length === 0
          ? 'your answer (empty to skip)'
          : question.multiSelect
            ? 'numbers, comma-separated, or your own answer (empty to skip)'
            : 'a number, or your own answer (empty to skip)';
      const reply = (await prompt.question(`${hint}> `)).trim();
      const numbers = reply.split(/[\s,]+/).filter((part) => part !== '');
      const allNumbers =
        numbers.length > 0 &&
        numbers.every((part) => /^\d+$/.test(part) && Number(part) >= 1 && Number(part) <= options.length);
      if (reply === '') items.push({ id: question.id, selected: [] });
      else if (options.length > 0 && allNumbers) {
        items.push({ id: question.id, selected: numbers.map((part) => options[Number(part) - 1]!.label) });
      } else items.push({ id: question.id, selected: [], custom: reply });
    }
    return items;
  } finally {
    prompt.close();
  }
}
