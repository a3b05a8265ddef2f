/**
 * Questions that several test files ask, written out once.
 *
 * - The deploy batch: three questions of each kind (single-select with a recommended option, multi-select,
 *   free-form), as the seam carries them ({@link environmentQuestion}, {@link checksQuestion},
 *   {@link noteQuestion}) and as the model sends them ({@link deployBatchArgs}). The two forms are written out
 *   independently, so a test comparing what the tool hands over with the seam form checks the conversion.
 * - The deploy-target call of the durable tests and of `scripts/record-histories.ts`
 *   ({@link deployTargetArgs}) and the answer that fits it ({@link deployTargetAnswer}).
 */
import type { AskUserQuestion } from '../../src/types';

/** Single-select, with a header and described options; the first one is recommended. */
export const environmentQuestion: AskUserQuestion = {
  id: 'env',
  question: 'Which environment should I deploy to?',
  header: 'Target',
  options: [
    { label: 'staging (Recommended)', description: 'Safe to break' },
    { label: 'production', description: 'Customers see it at once' },
  ],
};

/** Multi-select, with three options. */
export const checksQuestion: AskUserQuestion = {
  id: 'checks',
  question: 'Which checks should run first?',
  options: [{ label: 'lint' }, { label: 'unit tests' }, { label: 'e2e' }],
  multiSelect: true,
};

/** Free-form only. */
export const noteQuestion: AskUserQuestion = {
  id: 'note',
  question: 'Anything to tell the on-call engineer?',
};

/** The deploy batch as the model sends it: the tool's arguments for the three questions above, in order. */
export const deployBatchArgs = {
  questions: [
    {
      id: 'env',
      header: 'Target',
      question: 'Which environment should I deploy to?',
      options: [
        { label: 'staging (Recommended)', description: 'Safe to break' },
        { label: 'production', description: 'Customers see it at once' },
      ],
    },
    {
      id: 'checks',
      question: 'Which checks should run first?',
      options: [{ label: 'lint' }, { label: 'unit tests' }, { label: 'e2e' }],
      multi_select: true,
    },
    { id: 'note', question: 'Anything to tell the on-call engineer?' },
  ],
};

/** What the model sends in the durable tests: a single-select question with a recommended option, and a free-form one. */
export const deployTargetArgs = {
  questions: [
    {
      id: 'env',
      header: 'Target',
      question: 'Where should I deploy build 1.4.2?',
      options: [{ label: 'staging (Recommended)' }, { label: 'production' }],
    },
    { id: 'note', question: 'Anything to tell the on-call engineer?' },
  ],
};

/** A valid answer to {@link deployTargetArgs}: the recommended target, and a note. */
export const deployTargetAnswer = {
  answers: [
    { id: 'env', selected: ['staging (Recommended)'] },
    { id: 'note', selected: [], custom: 'ship it' },
  ],
};
