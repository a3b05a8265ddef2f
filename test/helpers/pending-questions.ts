/**
 * Waiting for a question to be pending, the two ways a test can see it:
 * - {@link waitForPendingRecord}: the workflow answers the `getQuestion` query with status `pending`, so the
 *   worker has run its first task (what a test needs before it signals or updates the question);
 * - {@link waitUntilListedPending}: the ops client lists it pending, so visibility has caught up too (what
 *   a user of `ask-user list` or the inbox sees).
 */
import type { Client } from '@temporalio/client';

import type { QuestionClient } from '../../src/ops';
import type { QuestionRecord } from '../../src/types';
import { getQuestionQuery } from '../../src/question/definitions';
import { eventually, waitFor } from './wait';

/**
 * Resolves with the question's record once its workflow answers `getQuestion` as pending. Until then (not
 * started yet, no task run yet, or already resolved) it keeps asking, for up to `timeoutMs`.
 */
export async function waitForPendingRecord(
  client: Client,
  workflowId: string,
  timeoutMs = 30_000,
): Promise<QuestionRecord> {
  return await eventually(
    `question ${workflowId} to answer getQuestion as pending`,
    async () => {
      const record = await client.workflow.getHandle(workflowId).query(getQuestionQuery);
      if (record.status !== 'pending') throw new Error(`question ${workflowId} is ${record.status}`);
      return record;
    },
    timeoutMs,
  );
}

/** Resolves once `questions.list('pending')` includes `workflowId`; a failing list call fails at once. */
export async function waitUntilListedPending(
  questions: QuestionClient,
  workflowId: string,
  timeoutMs = 60_000,
): Promise<void> {
  await waitFor(
    `${workflowId} to be listed pending`,
    async () => {
      const pending = await questions.list('pending');
      return pending.some((question) => question.workflowId === workflowId) ? true : undefined;
    },
    timeoutMs,
  );
}
