/**
 * What a workflow validator throws, read in a unit test of `QuestionState`.
 */
import assert from 'node:assert/strict';

import { ApplicationFailure } from '@temporalio/common';

/** The failure `fn` throws, checked to be a non-retryable application failure. */
export function refusal(fn: () => unknown): ApplicationFailure {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof ApplicationFailure, `expected an ApplicationFailure, got ${String(error)}`);
    assert.equal(error.nonRetryable, true);
    return error;
  }
  assert.fail('expected a refusal');
}
