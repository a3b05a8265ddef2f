/**
 * The question's names on the wire that need no Temporal import: its workflow type, default task queue and
 * workflow id prefix. Dependency-free, so listing and the tool-only entry can use them without loading
 * `@temporalio/workflow` (whose message definitions live in `definitions.ts`).
 */

/** Workflow type of a durable question. */
export const ASK_USER_QUESTION_WORKFLOW_TYPE = 'askUserQuestionWorkflow';

/** Default task queue; override with `ASK_USER_TASK_QUEUE`. */
export const DEFAULT_TASK_QUEUE = 'ask-user-question';

/** Every durable question's workflow id starts with this prefix. */
export const WORKFLOW_ID_PREFIX = 'ask-user-question/';
