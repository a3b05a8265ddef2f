/**
 * The one listing of questions: the visibility queries, the page cursor, and the row of a list built from an
 * execution and its memo. The ops client (`QuestionClient.listPage`, `list`), the inbox's `QuestionIndex`,
 * `ask-user list` and the MCP server all list through it, so they show the same queue in the same order with
 * the same page tokens.
 *
 * Pages are read with the SDK's `workflowService.listWorkflowExecutions` (the raw call, for its page token,
 * which `client.workflow.list()` hides) and memos decoded with the client's own data converter and codecs.
 */
import type { Client } from '@temporalio/client';
import { mapFromPayloads, type Payload } from '@temporalio/common';
import { temporal, type google } from '@temporalio/proto';
import type { ApprovalDecisionType, QuestionAudience, QuestionStatus } from '../types';
import type { QuestionMemo } from '../question/definitions';
import { QuestionOperationError } from '../interaction/question-operation-error';
import {
  ALL_QUESTIONS_QUERY,
  COMPLETED_QUESTIONS_QUERY,
  PENDING_QUESTIONS_QUERY,
  RESOLVED_QUESTIONS_QUERY,
} from '../question/visibility-query';

/** A listed question: the row `ask-user list`, the inbox and the ops client show. */
export interface QuestionSummary {
  workflowId: string;
  /** The first question's header or text. */
  title: string;
  status: QuestionStatus;
  questionCount: number;
  /** When the server started the question's workflow. */
  askedAt: string;
  /**
   * When it was resolved. For an answered question this is when its workflow closed, which is the task that
   * recorded the answer, milliseconds after the record's `resolvedAt` (the start of that task), because an
   * answered question writes nothing to its memo as it closes. For the others, the time the workflow recorded.
   */
  resolvedAt?: string;
  agentId?: string;
  sessionId?: string;
  toolCallId?: string;
  /** The deadline of a pending question that has one. */
  expiresAt?: string;
  /** `approval` for an approval of a tool call; absent for questions. */
  kind?: 'approval';
  /** An approval's tool. */
  toolName?: string;
  /** A decided approval's decision. */
  decision?: ApprovalDecisionType;
  /** Who may answer; absent: anyone. */
  audience?: QuestionAudience;
}

/**
 * Which questions a list returns: `pending` (waiting for an answer), `answered`, `resolved` (everything no
 * longer pending: answered, declined, expired, cancelled) or `all` (pending first, then the resolved ones).
 */
export type QuestionIndexStatus = 'pending' | 'answered' | 'resolved' | 'all';

/** Every value of {@link QuestionIndexStatus}, for checking input. */
export const QUESTION_INDEX_STATUSES: readonly QuestionIndexStatus[] = [
  'pending',
  'answered',
  'resolved',
  'all',
];

/** A bad status, page token or page size: the caller's mistake, named by field (`BAD_REQUEST`). */
export function listInputError(message: string): QuestionOperationError {
  return QuestionOperationError.badRequest(message);
}

export const MAX_PAGE_SIZE = 1000;
const DEFAULT_PAGE_SIZE = 50;

/** What a list needs of one execution: `WorkflowExecutionInfo` and `VisibleExecution` both carry it. */
export interface ListedExecution {
  workflowId: string;
  status: { name: string };
  startTime: Date;
  closeTime?: Date | undefined;
  memo?: Record<string, unknown> | undefined;
}

/** One server page of a visibility query, as rows of a list; the token is the server's, base64. */
export interface ServerPage {
  summaries: QuestionSummary[];
  nextPageToken?: string;
}

/**
 * Reads one server page of `query`: `pageSize` rows at most, from `serverToken` (base64; empty for the first
 * page). Errors carry the gRPC `code` of the failed call.
 */
export type ServerPageReader = (query: string, pageSize: number, serverToken: string) => Promise<ServerPage>;

/** Options of {@link listQuestionPage}. */
export interface QuestionPageOptions {
  status?: QuestionIndexStatus;
  /** 1–1000; default 50. */
  pageSize?: number;
  pageToken?: string;
}

/** One page of a list; `nextPageToken` is opaque and absent on the last page. */
export interface QuestionSummaryPage {
  questions: QuestionSummary[];
  nextPageToken?: string;
}

/** A question's status from its execution status and the memo its workflow wrote. */
export function questionStatusOf(
  execution: Pick<ListedExecution, 'status'>,
  memo: Partial<QuestionMemo>,
): QuestionStatus {
  switch (execution.status.name) {
    case 'RUNNING':
      return 'pending';
    case 'COMPLETED':
      // The workflow records how it ended (answered, declined, expired) in its memo before completing.
      return memo.status === undefined || memo.status === 'pending' ? 'answered' : memo.status;
    case 'TIMED_OUT':
      return 'expired';
    default:
      // Cancelled, terminated, failed: the question was withdrawn and can no longer be answered.
      return 'cancelled';
  }
}

/** One row of a list, from the execution and its memo alone. */
export function questionSummaryOf(execution: ListedExecution): QuestionSummary {
  const memo = (execution.memo ?? {}) as Partial<QuestionMemo>;
  const summary: QuestionSummary = {
    workflowId: execution.workflowId,
    title: memo.title ?? execution.workflowId,
    status: questionStatusOf(execution, memo),
    questionCount: memo.questionCount ?? 0,
    // The server's start time, as `get()` and the workflow's own record report it; the memo's `askedAt` is the
    // asking agent's clock, read just before its start request (and far off on a machine with a skewed clock).
    askedAt: execution.startTime.toISOString(),
  };
  const resolvedAt = memo.resolvedAt ?? execution.closeTime?.toISOString();
  if (summary.status !== 'pending' && resolvedAt !== undefined) summary.resolvedAt = resolvedAt;
  if (memo.agentId !== undefined) summary.agentId = memo.agentId;
  if (memo.sessionId !== undefined) summary.sessionId = memo.sessionId;
  if (memo.toolCallId !== undefined) summary.toolCallId = memo.toolCallId;
  if (summary.status === 'pending' && memo.expiresAt !== undefined) summary.expiresAt = memo.expiresAt;
  if (memo.kind === 'approval') summary.kind = 'approval';
  if (memo.toolName !== undefined) summary.toolName = memo.toolName;
  if (memo.audience !== undefined) summary.audience = memo.audience;
  if (memo.decision !== undefined) summary.decision = memo.decision;
  // An approval writes no closing memo when approved as asked (see the workflow's `writesClosingMemo`).
  else if (memo.kind === 'approval' && summary.status === 'answered') summary.decision = 'approve';
  return summary;
}

/** Where a multi-phase list stands: `all` lists the pending questions (phase 0) and then the rest (phase 1). */
interface PageCursor {
  status: QuestionIndexStatus;
  phase: 0 | 1;
  /** The server's page token, base64; empty for the first page of a phase. */
  serverToken: string;
}

function encodeCursor(cursor: PageCursor): string {
  return Buffer.from(JSON.stringify([1, cursor.status, cursor.phase, cursor.serverToken])).toString(
    'base64url',
  );
}

function decodeCursor(token: string, status: QuestionIndexStatus): PageCursor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw listInputError('pageToken: not a page token this inbox issued');
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 4 ||
    parsed[0] !== 1 ||
    !QUESTION_INDEX_STATUSES.includes(parsed[1] as QuestionIndexStatus) ||
    (parsed[2] !== 0 && parsed[2] !== 1) ||
    typeof parsed[3] !== 'string'
  ) {
    throw listInputError('pageToken: not a page token this inbox issued');
  }
  if (parsed[1] !== status) {
    throw listInputError(`pageToken: belongs to a list of status ${parsed[1] as string}, not ${status}`);
  }
  return { status, phase: parsed[2] as 0 | 1, serverToken: parsed[3] };
}

/** The visibility query of each phase of a list; `all` has two. */
function phaseQueries(status: QuestionIndexStatus): string[] {
  switch (status) {
    case 'pending':
      return [PENDING_QUESTIONS_QUERY];
    case 'answered':
      return [COMPLETED_QUESTIONS_QUERY];
    case 'resolved':
      return [RESOLVED_QUESTIONS_QUERY];
    case 'all':
      return [PENDING_QUESTIONS_QUERY, RESOLVED_QUESTIONS_QUERY];
  }
}

/**
 * One page of questions, newest first; with `all`, every pending question comes before the resolved ones. The
 * first page of a list that fits one server page is one visibility call.
 *
 * @throws QuestionOperationError `BAD_REQUEST` for a status or page size out of range, or a page token this list did not
 *   issue (or that the server refuses)
 */
export async function listQuestionPage(
  readPage: ServerPageReader,
  options: QuestionPageOptions = {},
): Promise<QuestionSummaryPage> {
  const status = options.status ?? 'pending';
  if (!QUESTION_INDEX_STATUSES.includes(status)) {
    throw listInputError(`status: must be one of ${QUESTION_INDEX_STATUSES.join(', ')}`);
  }
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
    throw listInputError(`pageSize: must be an integer from 1 to ${MAX_PAGE_SIZE}`);
  }
  let cursor: PageCursor =
    options.pageToken === undefined || options.pageToken === ''
      ? { status, phase: 0, serverToken: '' }
      : decodeCursor(options.pageToken, status);
  const queries = phaseQueries(status);
  const found: QuestionSummary[] = [];
  // Every row of a server page is consumed (kept, or dropped by the `answered` filter), so the server's
  // token always continues exactly after the last row looked at. Asking for only what is missing keeps pages
  // full across the phase change of `all` and across rows that the filter drops.
  for (;;) {
    const query = queries[cursor.phase];
    if (query === undefined) break;
    let response: ServerPage;
    try {
      response = await readPage(query, pageSize - found.length, cursor.serverToken);
    } catch (error) {
      // The server refuses a token it cannot read (one that was tampered with) as INVALID_ARGUMENT.
      if (cursor.serverToken !== '' && (error as { code?: unknown }).code === 3) {
        throw listInputError('pageToken: not a page token this inbox issued');
      }
      throw error;
    }
    for (const summary of response.summaries) {
      if (status === 'answered' && summary.status !== 'answered') continue;
      found.push(summary);
    }
    if (response.nextPageToken !== undefined) {
      cursor = { status, phase: cursor.phase, serverToken: response.nextPageToken };
    } else if (cursor.phase + 1 < queries.length) {
      cursor = { status, phase: 1, serverToken: '' };
    } else {
      return { questions: found };
    }
    if (found.length >= pageSize) break;
  }
  return { questions: found, nextPageToken: encodeCursor(cursor) };
}

const STATUS_PREFIX = 'WORKFLOW_EXECUTION_STATUS_';

/** Milliseconds of a protobuf timestamp, whose seconds may be a `Long`. */
function timestampMs(timestamp: google.protobuf.ITimestamp): number {
  const { seconds, nanos } = timestamp;
  const wholeSeconds = typeof seconds === 'number' ? seconds : (seconds?.toNumber() ?? 0);
  return wholeSeconds * 1000 + Math.floor((nanos ?? 0) / 1_000_000);
}

/**
 * The rows of one raw visibility response. Memos go through the client's payload codecs (in reverse, as the
 * SDK decodes) and then its payload converter, so a client with an encrypting codec lists like any other.
 */
async function listedExecutionsOf(
  client: Client,
  executions: temporal.api.workflow.v1.IWorkflowExecutionInfo[],
): Promise<ListedExecution[]> {
  const { payloadConverter, payloadCodecs } = client.options.loadedDataConverter;
  // Codecs run last to first, as the SDK decodes, once per execution for all of its memo fields; with none (the
  // usual case) the payloads are read as they are, so a page of 1000 rows costs no extra awaits.
  const codecs = [...payloadCodecs].reverse();
  const decodeMemo = async (
    fields: Record<string, temporal.api.common.v1.IPayload>,
  ): Promise<Record<string, Payload>> => {
    if (codecs.length === 0) return fields;
    const keys = Object.keys(fields);
    let payloads = keys.map((key) => fields[key] as Payload);
    for (const codec of codecs) payloads = await codec.decode(payloads);
    return Object.fromEntries(keys.map((key, index) => [key, payloads[index]!]));
  };
  return await Promise.all(
    executions.map(async (raw) => {
      const decoded = await decodeMemo(raw.memo?.fields ?? {});
      const statusName = temporal.api.enums.v1.WorkflowExecutionStatus[raw.status ?? 0] ?? '';
      const listed: ListedExecution = {
        workflowId: raw.execution?.workflowId ?? '',
        status: {
          name: statusName.startsWith(STATUS_PREFIX) ? statusName.slice(STATUS_PREFIX.length) : statusName,
        },
        startTime: new Date(raw.startTime ? timestampMs(raw.startTime) : 0),
        memo: mapFromPayloads(payloadConverter, decoded) ?? {},
      };
      if (raw.closeTime) listed.closeTime = new Date(timestampMs(raw.closeTime));
      return listed;
    }),
  );
}

/** Server pages of questions through `client`'s `ListWorkflowExecutions`, for {@link listQuestionPage}. */
export function visibilityPages(client: Client): ServerPageReader {
  return async (query, pageSize, serverToken) => {
    const response = await client.workflowService.listWorkflowExecutions({
      namespace: client.options.namespace,
      query,
      pageSize,
      nextPageToken: Buffer.from(serverToken, 'base64'),
    });
    const summaries = (await listedExecutionsOf(client, response.executions)).map(questionSummaryOf);
    const next = response.nextPageToken;
    return next === null || next === undefined || next.length === 0
      ? { summaries }
      : { summaries, nextPageToken: Buffer.from(next).toString('base64') };
  };
}

/** Every pending question, in server pages of 1000. */
export async function allPendingQuestions(readPage: ServerPageReader): Promise<QuestionSummary[]> {
  const summaries: QuestionSummary[] = [];
  let token = '';
  for (;;) {
    const response = await readPage(PENDING_QUESTIONS_QUERY, MAX_PAGE_SIZE, token);
    summaries.push(...response.summaries);
    if (response.nextPageToken === undefined) return summaries;
    token = response.nextPageToken;
  }
}

export { ALL_QUESTIONS_QUERY, PENDING_QUESTIONS_QUERY };
