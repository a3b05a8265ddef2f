/**
 * A question's record once it exists. A surface that follows an agent's call (an MCP task, an A2A task) may look
 * for the question before the agent's start has reached the server, so it reads again, backing off, until the
 * record is there or the caller gives up.
 */
import { setTimeout as sleep } from 'node:timers/promises';

import { QuestionOperationError } from '../interaction/question-operation-error';
import type { QuestionRecord } from '../types';

const FIRST_READ_DELAY_MS = 50;
const MAX_READ_DELAY_MS = 1_000;

/**
 * Reads `workflowId` with `read` until the question exists, and resolves with its record, or with `undefined`
 * when `signal` aborts first. Any failure other than `NOT_FOUND` is thrown at once.
 */
export async function startedRecord(
  read: (workflowId: string) => Promise<QuestionRecord>,
  workflowId: string,
  signal: AbortSignal,
): Promise<QuestionRecord | undefined> {
  for (let delay = FIRST_READ_DELAY_MS; !signal.aborted; delay = Math.min(delay * 2, MAX_READ_DELAY_MS)) {
    try {
      return await read(workflowId);
    } catch (error) {
      if (!(QuestionOperationError.isInstance(error) && error.code === 'NOT_FOUND')) throw error;
    }
    await sleep(delay, undefined, { signal }).catch(() => undefined);
  }
  return undefined;
}
