/**
 * The floor the benchmarks compare against: the least a Temporal workflow can do to wait for one answer. It
 * takes the question as its argument, waits for one signal (or one update), and returns what it received. No
 * validation, no memo, no activities: whatever `askUserQuestionWorkflow` costs beyond this is ours.
 *
 * Workflow code: it runs in the worker's sandbox, so it imports `@temporalio/workflow` only.
 */
import { condition, defineSignal, defineUpdate, setHandler } from '@temporalio/workflow';

/** The answer as the floor receives it: any JSON value, returned unchanged. */
export type FloorAnswer = unknown;

/** Delivers the answer to {@link floorSignalWorkflow}. */
export const floorAnswerSignal = defineSignal<[FloorAnswer]>('answer');

/** Delivers the answer to {@link floorUpdateWorkflow}; returns it once recorded. */
export const floorAnswerUpdate = defineUpdate<FloorAnswer, [FloorAnswer]>('submitAnswer');

/** Waits for one `answer` signal and returns its argument. */
export async function floorSignalWorkflow(_question: unknown): Promise<FloorAnswer> {
  let answer: { value: FloorAnswer } | undefined;
  setHandler(floorAnswerSignal, (value) => {
    answer ??= { value };
  });
  await condition(() => answer !== undefined);
  return answer!.value;
}

/** Waits for one `submitAnswer` update and returns its argument. */
export async function floorUpdateWorkflow(_question: unknown): Promise<FloorAnswer> {
  let answer: { value: FloorAnswer } | undefined;
  setHandler(floorAnswerUpdate, (value) => {
    answer ??= { value };
    return value;
  });
  await condition(() => answer !== undefined);
  return answer!.value;
}
