/**
 * The user-interaction seam from a test's side: a provider whose answers the test scripts, and the check that a
 * call failed with a `UserInteractionError` of an exact code and message.
 */
import assert from 'node:assert/strict';
import { inspect } from 'node:util';

import { UserInteractionError } from '../../src/interaction';
import type { AskUserQuestionRequest, UserInteraction } from '../../src/types';

/**
 * A provider that records every request and answers with what `reply` returns. The answer is not checked
 * here: it may be anything at all, as a provider written in plain JavaScript may return.
 */
export function scriptedProvider(reply: (request: AskUserQuestionRequest) => unknown): {
  provider: UserInteraction;
  requests: AskUserQuestionRequest[];
} {
  const requests: AskUserQuestionRequest[] = [];
  const provider = {
    ask: async (request: AskUserQuestionRequest) => {
      requests.push(request);
      return reply(request);
    },
  } as UserInteraction;
  return { provider, requests };
}

/** A rejection with any value at all, as a provider written in plain JavaScript may produce. */
export function rejectWith(reason: unknown): Promise<never> {
  // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- non-Error reasons are the input under test
  return Promise.reject(reason);
}

/**
 * Awaits a promise that must reject with a `UserInteractionError` of this code and exact message, and returns
 * the error for further checks.
 */
export async function expectFailure(
  promise: Promise<unknown>,
  code: string,
  message: string,
): Promise<UserInteractionError> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  assert.ok(caught !== undefined, `expected a ${code} failure, but the call resolved`);
  assert.ok(
    UserInteractionError.isInstance(caught),
    `expected a UserInteractionError, got ${inspect(caught)}`,
  );
  assert.equal(caught.code, code);
  assert.equal(caught.message, message);
  return caught;
}
