/**
 * What the Temporal Web UI shows as a question's current details: its status in words, with the deadline while
 * it is pending and how a policy answered or decided it. Pure: the workflow sets it after every change.
 *
 * Deterministic code only: this file runs in the workflow sandbox.
 */
import type { QuestionRecord, QuestionStatus } from '../types';
import { POLICY_EXPIRED_ANSWERER } from '../question/question-policy';
import { decisionWords } from '../question/question-text';

/** A question's status in words. */
const DETAILS_BY_STATUS: Record<QuestionStatus, string> = {
  pending: 'Waiting for an answer',
  answered: 'Answered',
  declined: 'Declined',
  cancelled: 'Cancelled',
  expired: 'Expired',
};

/** The status in words (`Waiting for an answer`, `Answered`, ...; `Rejected`, ... for an approval). */
export function statusDetails(record: QuestionRecord): string {
  if (record.approval === undefined) return DETAILS_BY_STATUS[record.status];
  if (record.status === 'pending') return 'Waiting for a decision';
  if (record.decision === undefined) return DETAILS_BY_STATUS[record.status];
  const words = decisionWords(record.decision, record.approval);
  return record.status === 'expired'
    ? `Expired: ${words}`
    : `${words.charAt(0).toUpperCase()}${words.slice(1)}`;
}

/** The Web UI's current details: the status, with the deadline while pending and the policy's answer. */
export function currentDetails(record: QuestionRecord): string {
  if (record.status === 'pending' && record.expiresAt !== undefined) {
    return `${statusDetails(record)} until ${record.expiresAt}`;
  }
  if (record.status === 'answered' && record.answeredBy === POLICY_EXPIRED_ANSWERER) {
    return 'Expired: answered with the recommended options';
  }
  return statusDetails(record);
}
