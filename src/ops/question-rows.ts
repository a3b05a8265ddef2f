/**
 * The rows of a list: a question's summary built from its execution and memo, and the server pages of a
 * visibility query read through the SDK's `workflowService.listWorkflowExecutions` (the raw call, for its page
 * token, which `client.workflow.list()` hides), with memos decoded by the client's own data converter and
 * codecs. The pager of `question-listing.ts` reads them; the watcher and the ops client build rows here too.
 */
import type { Client } from '@temporalio/client';
import { mapFromPayloads, type Payload } from '@temporalio/common';
import { temporal, type google } from '@temporalio/proto';
import type { ApprovalDecisionType, QuestionAudience, QuestionStatus } from '../types';
import type { QuestionMemo } from '../question/definitions';

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

const STATUS_PREFIX = 'WORKFLOW_EXECUTION_STATUS_';

/** `payloads` through `client`'s payload codecs, last to first, as the SDK decodes. */
export async function throughCodecs(client: Client, payloads: Payload[]): Promise<Payload[]> {
  let decoded = payloads;
  for (const codec of [...client.options.loadedDataConverter.payloadCodecs].reverse()) {
    decoded = await codec.decode(decoded);
  }
  return decoded;
}

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
  // Once per execution for all of its memo fields; with no codec (the usual case) the payloads are read as they
  // are, so a page of 1000 rows costs no extra awaits.
  const decodeMemo = async (
    fields: Record<string, temporal.api.common.v1.IPayload>,
  ): Promise<Record<string, Payload>> => {
    if (payloadCodecs.length === 0) return fields;
    const keys = Object.keys(fields);
    const payloads = await throughCodecs(
      client,
      keys.map((key) => fields[key] as Payload),
    );
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
