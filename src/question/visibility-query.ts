/**
 * The one visibility query of questions: every list, count and watcher (ops client, inbox, CLI, MCP) selects
 * questions with these, so all of them show the same queue.
 */
import { ASK_USER_QUESTION_WORKFLOW_TYPE } from './names';

const BASE_QUERY = `WorkflowType = '${ASK_USER_QUESTION_WORKFLOW_TYPE}'`;

/**
 * A question that lives long continues as new: each of its runs has a row of its own, and only the last run of
 * the chain (running, or closed any other way) is the question. The earlier ones are left out of every list.
 */
const NOT_CONTINUED = `ExecutionStatus != 'ContinuedAsNew'`;

/** Every question. */
export const ALL_QUESTIONS_QUERY = `${BASE_QUERY} AND ${NOT_CONTINUED}`;
/** The questions still waiting for an answer. */
export const PENDING_QUESTIONS_QUERY = `${BASE_QUERY} AND ExecutionStatus = 'Running'`;
/** The questions no longer pending: answered, declined, expired or cancelled. */
export const RESOLVED_QUESTIONS_QUERY = `${BASE_QUERY} AND ExecutionStatus != 'Running' AND ${NOT_CONTINUED}`;
/**
 * The questions whose workflow completed: answered, and also declined or expired with a recommended answer,
 * which the memo tells apart.
 */
export const COMPLETED_QUESTIONS_QUERY = `${BASE_QUERY} AND ExecutionStatus = 'Completed'`;
