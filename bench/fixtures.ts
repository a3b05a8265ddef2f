/**
 * The calls the benchmarks make, as a model would send them, each with a valid answer and the exact text the
 * tool returns for it: a single question, a typical mixed call, and a call at every limit of the contract.
 */
import { LIMITS, MAX_REQUEST_BYTES } from '../src/tool';
import type { AskUserQuestionAnswer } from '../src/types';

/** One call of `ask_user_question` and the answer a human gives to it. */
export interface BenchCall {
  name: string;
  /** The tool's arguments, as the model sends them (snake_case). */
  args: { questions: Record<string, unknown>[] };
  answer: AskUserQuestionAnswer;
  /** What `execute` resolves to for `answer`. */
  resultText: string;
}

function call(name: string, args: BenchCall['args'], answer: AskUserQuestionAnswer): BenchCall {
  return { name, args, answer, resultText: JSON.stringify(answer) };
}

/** A single single-select question with a recommended option. */
export const singleQuestionCall: BenchCall = call(
  '1 question',
  {
    questions: [
      {
        id: 'deploy',
        header: 'Deploy',
        question: 'Deploy build 1.4.2 to production now?',
        options: [
          { label: 'Yes (Recommended)', description: 'All checks passed on staging' },
          { label: 'No', description: 'Keep it on staging' },
        ],
      },
    ],
  },
  { answers: [{ id: 'deploy', selected: ['Yes (Recommended)'] }] },
);

/** Single-select, multi-select and free-form questions in one call, answered with one, two and custom. */
export const mixedCall: BenchCall = call(
  '3 questions, mixed',
  {
    questions: [
      {
        id: 'env',
        header: 'Target',
        question: 'Where should I deploy build 1.4.2?',
        options: [
          { label: 'staging (Recommended)', description: 'Safe default' },
          { label: 'production', description: 'Customers see it at once' },
          { label: 'canary', description: '5% of traffic' },
        ],
      },
      {
        id: 'checks',
        header: 'Checks',
        question: 'Which checks should run before the deploy?',
        multi_select: true,
        options: [
          { label: 'unit tests' },
          { label: 'integration tests' },
          { label: 'load test' },
          { label: 'security scan' },
        ],
      },
      { id: 'note', question: 'Anything to tell the on-call engineer?' },
    ],
  },
  {
    answers: [
      { id: 'env', selected: ['staging (Recommended)'] },
      { id: 'checks', selected: ['unit tests', 'security scan'] },
      { id: 'note', selected: [], custom: 'Ship it after the 3 pm freeze lifts.' },
    ],
  },
);

/** Text of exactly `length` characters that starts with `prefix`, so that texts stay distinct. */
function textOf(prefix: string, length: number): string {
  const filler = ' lorem ipsum dolor sit amet,';
  let text = prefix;
  while (text.length < length) text += filler;
  return text.slice(0, length);
}

/**
 * 20 multi-select questions × 20 options, every text at its maximum length (ids 100, questions 4000, headers
 * 80, labels 200 characters) except the descriptions, which are as long as `MAX_REQUEST_BYTES` lets them be
 * (the field limits alone allow about 560 KB), answered by selecting all 20 labels of every question: the most
 * work validation and the answer rules can be given.
 */
export const maximalCall: BenchCall = (() => {
  const questionsWith = (descriptionLength: number) =>
    Array.from({ length: LIMITS.questions }, (_unused, questionIndex) => ({
      id: textOf(`q${questionIndex}`, LIMITS.idLength),
      header: textOf(`Header ${questionIndex}`, LIMITS.headerLength),
      question: textOf(`Question ${questionIndex}?`, LIMITS.questionLength),
      multi_select: true,
      options: Array.from({ length: LIMITS.options }, (_option, optionIndex) => ({
        label: textOf(`Option ${questionIndex}.${optionIndex}`, LIMITS.labelLength),
        description: textOf(`Meaning of ${questionIndex}.${optionIndex}`, descriptionLength),
      })),
    }));
  // The texts are ASCII, so characters are bytes; the request is measured as the tool measures it.
  const fits = (descriptionLength: number): boolean =>
    Buffer.byteLength(JSON.stringify({ questions: questionsWith(descriptionLength) })) <= MAX_REQUEST_BYTES;
  // The longest description that fits, by bisection: the request grows with every character.
  let [fitting, tooLong] = [0, LIMITS.descriptionLength + 1];
  if (fits(LIMITS.descriptionLength)) fitting = LIMITS.descriptionLength;
  while (tooLong - fitting > 1) {
    const middle = Math.floor((fitting + tooLong) / 2);
    if (fits(middle)) fitting = middle;
    else tooLong = middle;
  }
  const descriptionLength = fitting;
  const questions = questionsWith(descriptionLength);
  const answer: AskUserQuestionAnswer = {
    answers: questions.map((question) => ({
      id: question.id,
      selected: question.options.map((option) => option.label),
    })),
  };
  return call(
    `maximal (${LIMITS.questions} questions × ${LIMITS.options} options, texts at limits, descriptions ` +
      `${descriptionLength} characters to fit ${MAX_REQUEST_BYTES / 1024} KiB)`,
    { questions },
    answer,
  );
})();

/** The three calls, smallest first. */
export const benchCalls: readonly BenchCall[] = [singleQuestionCall, mixedCall, maximalCall];
