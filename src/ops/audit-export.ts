/**
 * The audit export: one line per request (question or approval) asked since a time, read from the server's
 * histories alone (no worker needed): who asked, what was asked, each answer, decision and decline with who and
 * when, the deadline and its moves, the reminders and the escalation, and how it ended.
 *
 * Streamed: one page of the visibility list at a time, that page's histories read a few at a time, each line
 * yielded as soon as its turn comes, so the memory an export holds is one page, whatever the count of requests.
 *
 * One history read gives both the record and the events, where `recordFromHistory` (question-history.ts) reads
 * the record alone after a `describe`: an export of 100,000 requests would pay that twice.
 */
import type { Client } from '@temporalio/client';
import { mapFromPayloads, type Payload } from '@temporalio/common';
import { definedFields } from '../common';
import { QuestionOperationError } from '../interaction/question-operation-error';
import {
  answerSignal,
  decideUpdate,
  declineUpdate,
  extendDeadlineUpdate,
  submitAnswerUpdate,
  type QuestionMemo,
} from '../question/definitions';
import { parseDuration } from '../question/question-policy';
import { ALL_QUESTIONS_QUERY } from '../question/visibility-query';
import type {
  ApprovalDecision,
  ApprovalSubject,
  AskUserQuestion,
  AskUserQuestionAnswer,
  AskUserQuestionWorkflowInput,
  AskUserQuestionWorkflowResult,
  DeadlineChange,
  QuestionAudience,
  QuestionOutcome,
  QuestionStatus,
  RejectedAnswer,
} from '../types';
import { throughCodecs, visibilityPages, type QuestionSummary } from './question-rows';

/** One answer, decision, decline or deadline move someone sent, as the history recorded it. */
export interface AuditAction {
  type: 'answer' | 'decide' | 'decline' | 'extend';
  /** When the server recorded it. */
  at: string;
  by?: string;
  groups?: string[];
  /** `answer`: sent as the update (a worker took it) or as the signal (recorded while none ran). */
  via?: 'update' | 'signal';
  answerId?: string;
  /** `decide`: the decision's type. */
  decision?: ApprovalDecision['type'];
  /** `extend`: what the deadline was moved by. */
  extendBy?: string | number;
}

/** One line of the export: one request. */
export interface AuditLine {
  workflowId: string;
  kind: 'question' | 'approval';
  status: QuestionStatus;
  askedAt: string;
  /** Who asked: the agent, its session and the tool call. */
  agentId?: string;
  sessionId?: string;
  toolCallId?: string;
  /** What was asked: the questions, or the tool call of an approval. */
  questions?: AskUserQuestion[];
  approval?: ApprovalSubject;
  audience?: QuestionAudience;
  /** The deadline as first set, and as last recorded (moved by `extend`, or the policy as it applied). */
  firstDeadline?: string;
  deadline?: string;
  deadlineChanges: DeadlineChange[];
  /** Reminders sent, as the record last reported them; `reminderTimes` when they went out as notifications. */
  remindersSent: number;
  reminderTimes: string[];
  escalatedAt?: string;
  /** Every answer, decision, decline and deadline move sent, oldest first, taken or not. */
  actions: AuditAction[];
  /** Answers the question refused, with the reason (a late one names the winner). */
  refusedAnswers: RejectedAnswer[];
  resolvedAt?: string;
  resolvedBy?: string;
  answer?: AskUserQuestionAnswer;
  decision?: ApprovalDecision;
  declineReason?: string;
}

/** Options of {@link auditLines}. */
export interface AuditExportOptions {
  /** Requests asked at or after this time. */
  since: Date;
  /** Rows per visibility page. Default 100. */
  pageSize?: number;
  /** Histories read at once. Default 8. */
  concurrency?: number;
}

type HistoryEvent = NonNullable<
  Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['fetchHistory']>>['events']
>[number];

function eventTime(event: HistoryEvent): string {
  const time = event.eventTime;
  const seconds = typeof time?.seconds === 'number' ? time.seconds : Number(time?.seconds ?? 0);
  return new Date(seconds * 1000 + Math.floor((time?.nanos ?? 0) / 1e6)).toISOString();
}

/** Decodes payloads through the client's codecs and payload converter. */
async function decode<T>(
  client: Client,
  payloads: readonly unknown[] | null | undefined,
): Promise<(T | undefined)[]> {
  const { payloadConverter } = client.options.loadedDataConverter;
  const decoded = await throughCodecs(client, (payloads ?? []) as Payload[]);
  return decoded.map((payload) => payloadConverter.fromPayload<T>(payload));
}

async function decodeMemo(
  client: Client,
  fields: Record<string, unknown> | null | undefined,
): Promise<Partial<QuestionMemo>> {
  if (fields === null || fields === undefined) return {};
  const keys = Object.keys(fields);
  const payloads = await throughCodecs(
    client,
    keys.map((key) => fields[key] as Payload),
  );
  const map = Object.fromEntries(keys.map((key, index) => [key, payloads[index]!]));
  const memo: Partial<QuestionMemo> | undefined = mapFromPayloads(
    client.options.loadedDataConverter.payloadConverter,
    map,
  );
  return memo ?? {};
}

/** Who sent an update or a signal, from its argument. */
function senderOf(
  type: AuditAction['type'],
  arg: Record<string, unknown> | undefined,
): Pick<AuditAction, 'by' | 'groups'> {
  const field = { answer: 'answeredBy', decide: 'decidedBy', decline: 'declinedBy', extend: 'extendedBy' }[
    type
  ];
  const by = arg?.[field];
  const groups = arg?.groups;
  return definedFields({
    by: typeof by === 'string' ? by : undefined,
    groups: Array.isArray(groups) && groups.length > 0 ? (groups as string[]) : undefined,
  });
}

const UPDATE_TYPES: Record<string, AuditAction['type']> = {
  [submitAnswerUpdate.name]: 'answer',
  [decideUpdate.name]: 'decide',
  [declineUpdate.name]: 'decline',
  [extendDeadlineUpdate.name]: 'extend',
};

/** What a history tells beyond the row: built event by event. */
interface HistoryFacts {
  input?: AskUserQuestionWorkflowInput;
  carried?: QuestionOutcome;
  memos: Partial<QuestionMemo>[];
  actions: AuditAction[];
  /** Accepted updates by id, until their completion says whether they were taken. */
  accepted: Map<string, AuditAction>;
  /** The record as the last completed update returned it. */
  lastOutcome?: QuestionOutcome;
  reminderTimes: string[];
  escalatedAt?: string;
  result?: AskUserQuestionWorkflowResult;
}

/** The update's action, from its accepted event. */
async function acceptedAction(client: Client, event: HistoryEvent): Promise<AuditAction | undefined> {
  const request = event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest;
  const type = UPDATE_TYPES[request?.input?.name ?? ''];
  if (type === undefined) return undefined;
  const [arg] = await decode<Record<string, unknown>>(client, request?.input?.args?.payloads);
  return definedFields({
    type,
    at: eventTime(event),
    ...senderOf(type, arg),
    via: type === 'answer' ? ('update' as const) : undefined,
    answerId: typeof arg?.answerId === 'string' ? arg.answerId : undefined,
    decision:
      type === 'decide' && typeof arg?.type === 'string' ? (arg.type as ApprovalDecision['type']) : undefined,
    extendBy: type === 'extend' ? (arg?.by as string | number | undefined) : undefined,
  });
}

/** Reads one event into `facts`. */
async function readEvent(
  client: Client,
  workflowId: string,
  event: HistoryEvent,
  facts: HistoryFacts,
): Promise<void> {
  const started = event.workflowExecutionStartedEventAttributes;
  if (started) {
    const [input, continuation] = await decode<Record<string, unknown>>(client, started.input?.payloads);
    if (input !== undefined) facts.input = input as unknown as AskUserQuestionWorkflowInput;
    // A run continued as new carries the record of the runs before it (the last 20 deadline moves, refusals).
    const state = (continuation as { state?: { record?: QuestionOutcome } } | undefined)?.state;
    if (state?.record !== undefined) facts.carried = state.record;
    facts.memos.push(await decodeMemo(client, started.memo?.fields));
    return;
  }
  const memo = event.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields;
  if (memo) facts.memos.push(await decodeMemo(client, memo));
  if (event.workflowExecutionUpdateAcceptedEventAttributes) {
    const action = await acceptedAction(client, event);
    const id = event.workflowExecutionUpdateAcceptedEventAttributes.acceptedRequest?.meta?.updateId;
    if (action !== undefined && id) facts.accepted.set(id, action);
  }
  const completed = event.workflowExecutionUpdateCompletedEventAttributes;
  if (completed?.meta?.updateId) {
    const action = facts.accepted.get(completed.meta.updateId);
    facts.accepted.delete(completed.meta.updateId);
    const success = completed.outcome?.success?.payloads;
    if (action !== undefined && success) {
      facts.actions.push(action);
      const [outcome] = await decode<QuestionOutcome>(client, success);
      if (outcome !== undefined) facts.lastOutcome = outcome;
    }
  }
  const signaled = event.workflowExecutionSignaledEventAttributes;
  if (signaled?.signalName === answerSignal.name) {
    const [arg] = await decode<Record<string, unknown>>(client, signaled.input?.payloads);
    facts.actions.push(
      definedFields({
        type: 'answer' as const,
        at: eventTime(event),
        ...senderOf('answer', arg),
        via: 'signal' as const,
        answerId: typeof arg?.answerId === 'string' ? arg.answerId : undefined,
      }),
    );
  }
  const child = event.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId ?? '';
  if (child.startsWith(`${workflowId}/webhook/question.reminder`)) facts.reminderTimes.push(eventTime(event));
  if (child === `${workflowId}/webhook/question.escalated`) facts.escalatedAt ??= eventTime(event);
  const result = event.workflowExecutionCompletedEventAttributes?.result?.payloads;
  if (result) {
    const [decoded] = await decode<AskUserQuestionWorkflowResult>(client, result);
    if (decoded !== undefined) facts.result = decoded;
  }
}

/** The deadline changes: the record's, else (no update returned one) none. */
function lastDefined<K extends keyof QuestionMemo>(
  memos: Partial<QuestionMemo>[],
  key: K,
): QuestionMemo[K] | undefined {
  for (let index = memos.length - 1; index >= 0; index -= 1) {
    const value = memos[index]![key];
    if (value !== undefined) return value;
  }
  return undefined;
}

/** How the request ended, from the workflow's result. */
function ending(result: AskUserQuestionWorkflowResult | undefined): Partial<AuditLine> {
  if (result === undefined) return {};
  switch (result.status) {
    case 'answered':
      return definedFields({
        resolvedAt: result.resolvedAt,
        resolvedBy: result.answeredBy,
        answer: result.answer,
      });
    case 'declined':
      return definedFields({
        resolvedAt: result.resolvedAt,
        resolvedBy: result.declinedBy,
        declineReason: result.reason,
      });
    case 'decided':
      return definedFields({
        resolvedAt: result.resolvedAt,
        resolvedBy: result.decision.decidedBy,
        decision: result.decision,
      });
    case 'expired':
      return { resolvedAt: result.resolvedAt };
  }
}

/** The line of one listed request, from its history. */
export async function auditLineOf(client: Client, row: QuestionSummary): Promise<AuditLine> {
  const history = await client.workflow.getHandle(row.workflowId).fetchHistory();
  const facts: HistoryFacts = { memos: [], actions: [], accepted: new Map(), reminderTimes: [] };
  for (const event of history.events ?? []) await readEvent(client, row.workflowId, event, facts);
  const input = facts.input;
  if (input === undefined) throw QuestionOperationError.notFound(row.workflowId);
  const record = facts.lastOutcome ?? facts.carried;
  const refused = [...(record?.rejectedAnswers ?? []), ...(facts.result?.rejectedAnswers ?? [])];
  const refusedAnswers = [
    ...new Map(refused.map((each) => [`${each.answerId}|${each.receivedAt}`, each])).values(),
  ];
  return definedFields({
    workflowId: row.workflowId,
    kind: input.approval === undefined ? ('question' as const) : ('approval' as const),
    status: row.status,
    askedAt: row.askedAt,
    agentId: input.agent?.id,
    sessionId: input.agent?.sessionId,
    toolCallId: input.toolCallId,
    questions: input.approval === undefined ? input.questions : undefined,
    approval: input.approval,
    audience: lastDefined(facts.memos, 'audience'),
    firstDeadline: facts.memos.find((memo) => memo.expiresAt !== undefined)?.expiresAt,
    deadline: record?.expiresAt ?? lastDefined(facts.memos, 'expiresAt'),
    deadlineChanges: record?.deadlineChanges ?? [],
    remindersSent: Math.max(record?.remindersSent ?? 0, facts.reminderTimes.length),
    reminderTimes: facts.reminderTimes,
    escalatedAt: record?.escalatedAt ?? facts.escalatedAt,
    actions: facts.actions,
    refusedAnswers,
    resolvedAt: row.resolvedAt,
    ...ending(facts.result),
  });
}

/**
 * The time `text` names for an export's start: an ISO-8601 date or date-time (`2026-12-01`,
 * `2026-12-01T09:00:00Z`), or a duration ago (`7d`, `12h`) counted from `now`; `undefined` for anything else.
 */
export function auditSince(text: string, now = Date.now()): Date | undefined {
  const ago = parseDuration(text);
  if (ago !== undefined) return new Date(now - ago);
  const time = /^\d{4}-\d{2}-\d{2}/.test(text) ? new Date(text) : undefined;
  return time === undefined || Number.isNaN(time.getTime()) ? undefined : time;
}

/**
 * Every request asked since `options.since`, newest first, one line each: a page of the visibility list at a
 * time, that page's histories read `concurrency` at a time, the lines yielded in the list's order.
 *
 * @throws QuestionOperationError `INVALID_ARGS` for a `since` that is not a time.
 */
export async function* auditLines(client: Client, options: AuditExportOptions): AsyncGenerator<AuditLine> {
  if (Number.isNaN(options.since.getTime())) {
    throw QuestionOperationError.invalidArgs([
      'since: must be a time such as 2026-12-01 or 2026-12-01T09:00:00Z',
    ]);
  }
  const query = `${ALL_QUESTIONS_QUERY} AND StartTime >= '${options.since.toISOString()}'`;
  const readPage = visibilityPages(client);
  const concurrency = options.concurrency ?? 8;
  let token = '';
  do {
    const page = await readPage(query, options.pageSize ?? 100, token);
    const lines: Promise<AuditLine>[] = [];
    let next = 0;
    const start = (): void => {
      const row = page.summaries[next++];
      if (row === undefined) return;
      const line = auditLineOf(client, row);
      // Awaited in turn below; a failure before its turn must not count as unhandled.
      line.catch(() => undefined);
      lines.push(line);
    };
    for (let index = 0; index < concurrency; index += 1) start();
    for (let index = 0; index < page.summaries.length; index += 1) {
      const line = await lines[index]!;
      // Keep `concurrency` reads in flight while the lines go out in order.
      start();
      yield line;
    }
    token = page.nextPageToken ?? '';
  } while (token !== '');
}
