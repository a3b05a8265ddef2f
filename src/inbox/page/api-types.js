// @ts-check
/**
 * The records of the inbox API as the page reads them: the shapes of `src/inbox/api-schemas.ts` (the zod
 * schemas that validate requests and generate `/api/openapi.json`), written as JSDoc so the page's modules
 * type-check against them without a build step. Types only: nothing here runs.
 */

/** @typedef {'pending' | 'answered' | 'declined' | 'cancelled' | 'expired'} QuestionStatus */
/** @typedef {'approve' | 'edit' | 'reject' | 'respond'} DecisionType */

/**
 * Who may answer or decide; absent: anyone logged in.
 * @typedef {{ users?: string[], groups?: string[] }} Audience
 */

/** @typedef {{ id: string, sessionId?: string }} Agent */

/** @typedef {{ label: string, description?: string }} QuestionOption */

/**
 * @typedef {object} Question
 * @property {string} id
 * @property {string} question
 * @property {string} [header]
 * @property {QuestionOption[]} [options]
 * @property {boolean} [multiSelect]
 */

/** @typedef {{ id: string, selected: string[], custom?: string }} AnswerItem */

/**
 * An approval's decision; an edit's `input` is the edited one.
 * @typedef {{ decidedBy?: string, decidedAt: string } & (
 *   | { type: 'approve' }
 *   | { type: 'edit', input: unknown }
 *   | { type: 'reject', reason?: string }
 *   | { type: 'respond', text: string }
 * )} Decision
 */

/**
 * The tool call an approval is about, with the input the agent asked.
 * @typedef {object} Approval
 * @property {string} toolName
 * @property {unknown} input
 * @property {string} [description]
 * @property {Record<string, unknown>} [inputSchema]
 * @property {'run' | 'suggest'} [onEdit] what the agent does with an edit: runs it (`run`, also when absent), or
 *   receives a denial that suggests the edited input (`suggest`)
 * @property {string} [requestedBy] who asked for the call (under `forbidSelfApproval` they may not decide it)
 */

/**
 * One approval given toward a call's `requiredApprovals`.
 * @typedef {{ decidedBy: string, decidedAt: string, type: 'approve' | 'edit', inputSha256: string, input?: unknown }} GivenApproval
 */

/**
 * One rejection given toward a call's `requiredRejections`.
 * @typedef {{ decidedBy: string, decidedAt: string, type: 'reject' | 'respond', reason?: string, text?: string }} GivenRejection
 */

/**
 * What the agent receives for an approval's decision; `asDecided` is false when its hook turns the decision into
 * something else (an edit into a denial).
 * @typedef {{ asDecided: boolean, text: string }} DecisionEffect
 */

/**
 * One row of a list, and what an event of `/api/events` carries.
 * @typedef {object} QuestionRow
 * @property {string} workflowId
 * @property {string} title
 * @property {QuestionStatus} status
 * @property {number} questionCount
 * @property {string} askedAt
 * @property {string} [resolvedAt]
 * @property {string} [agentId]
 * @property {string} [sessionId]
 * @property {string} [toolCallId]
 * @property {string} [expiresAt]
 * @property {'approval'} [kind]
 * @property {string} [toolName]
 * @property {DecisionType} [decision]
 * @property {Audience} [audience]
 * @property {string} [resolvedBy]
 * @property {DecisionEffect} [effect] in lists of resolved questions: what the agent received for a decision
 * @property {true} [assignedToYou]
 */

/** @typedef {{ pending: number, resolved: number, total: number }} QuestionCounts */

/** @typedef {{ questions: QuestionRow[], nextPageToken?: string, counts: QuestionCounts }} QuestionPage */

/**
 * What an answer, decline, decision or extension returns: the record without its questions.
 * @typedef {object} Outcome
 * @property {string} workflowId
 * @property {'approval'} [kind]
 * @property {Approval} [approval]
 * @property {Decision} [decision]
 * @property {DecisionEffect} [effect] once an approval is decided: what the agent receives
 * @property {Audience} [audience]
 * @property {number} [requiredApprovals] how many distinct people must approve the call, when more than one
 * @property {GivenApproval[]} [approvals] the approvals given so far, oldest first
 * @property {number} [requiredRejections] how many distinct people must reject the call to deny it, when more
 *   than one
 * @property {GivenRejection[]} [rejections] the rejections given so far, oldest first
 * @property {QuestionStatus} status
 * @property {Agent} [agent]
 * @property {string} [toolCallId]
 * @property {string} askedAt
 * @property {string} [resolvedAt]
 * @property {{ answers: AnswerItem[] }} [answer]
 * @property {string} [answeredBy]
 * @property {string} [declineReason]
 * @property {string} [declinedBy]
 * @property {string} [expiresAt]
 * @property {true} [assignedToYou]
 * @property {RejectedAnswer[]} [rejectedAnswers] answers the question refused (a late one names the winner)
 * @property {{ receivedAt: string, answeredBy?: string, answerId?: string }[]} [unvalidatedAnswers] answers
 *   recorded while no worker ran, not yet taken or refused
 * @property {{ taskQueue: string }} [noWorker] present when no worker runs the question now
 * @property {{ answerId: string, receivedAt: string, taskQueue: string }} [awaitingWorker] on an answer's 202:
 *   yours, recorded for a worker to validate
 */

/** @typedef {{ receivedAt: string, answeredBy?: string, reason: string, answerId?: string }} RejectedAnswer */

/**
 * The full record of one question or approval.
 * @typedef {Outcome & { questions: Question[] }} QuestionRecord
 */

/** @typedef {{ methods: ('token' | 'sso')[] }} LoginMethods */

/**
 * Who is logged in; `csrfToken` is present for a page session (cookie) only.
 * @typedef {{ name: string, groups: string[], csrfToken?: string }} Session
 */

/**
 * `{ error, message }` of every refusal; `rule` names the answer or decision rule a `BAD_ANSWER` broke.
 * @typedef {{ error: string, message: string, rule?: string }} ErrorBody
 */

/**
 * What `POST /api/questions/:id/decide` takes; `stop` (reject only) also stops the agent's run.
 * @typedef {{ type: DecisionType, input?: unknown, reason?: string, text?: string, stop?: boolean }} DecideRequest
 */

/**
 * A standing grant, as `GET /api/grants` lists it.
 * @typedef {object} Grant
 * @property {string} id
 * @property {string} agentId
 * @property {string} toolName
 * @property {Record<string, unknown>} [inputSchema]
 * @property {unknown} [input]
 * @property {string} [sessionId]
 * @property {string} grantedBy
 * @property {string} grantedAt
 * @property {string} expiresAt
 * @property {string} [note]
 * @property {string} [revokedBy]
 * @property {string} [revokedAt]
 * @property {number} uses
 * @property {'active' | 'revoked' | 'expired'} [status]
 */

/**
 * What `POST /api/grants` takes: the granter is the login.
 * @typedef {{ agentId: string, toolName: string, expireAfter: string, inputSchema?: Record<string, unknown>,
 *   input?: unknown, sessionId?: string, note?: string, grantedWith?: string }} GrantRequest
 */

export {};

/**
 * `POST /api/batch`: one action on the questions named by id.
 * @typedef {{ action: 'approve', select: { ids: string[] } }
 *   | { action: 'deny', select: { ids: string[] }, reason?: string }
 *   | { action: 'answer', select: { ids: string[] }, answers: AnswerItem[] }} BatchRequest
 */

/**
 * One item of a batch: recorded, or refused with why (and, for one already resolved, who won). A decision counted
 * toward the two-person rule is recorded with the count it reached, the call still pending.
 * @typedef {{ workflowId: string, recorded: true, status: QuestionStatus, awaitingWorker?: true,
 *       approvals?: { given: number, required: number }, rejections?: { given: number, required: number } }
 *   | { workflowId: string, recorded: false, refusal: string, error: string, message: string,
 *       resolvedBy?: string, resolvedAt?: string }} BatchItemResult
 */

/** @typedef {{ results: BatchItemResult[], recorded: number, refused: number }} BatchResult */
