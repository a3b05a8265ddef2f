/**
 * The one pager of questions: which visibility queries each list reads, the rows it keeps (the `answered`
 * filter, the audience of the assigned list), and the opaque page token over the server's own cursor. The ops
 * client (`QuestionClient.listPage`, `list`, the assigned list), the question watcher, the inbox, `ask-user list`
 * and the MCP server all list through it, so they show the same queue in the same order with the same page
 * tokens. The rows themselves, and the reading of a server page, are `question-rows.ts`'s.
 */
import { QuestionOperationError } from '../interaction/question-operation-error';
import { inAudience } from '../answer/audience-rules';
import { definedFields } from '../common';
import {
  COMPLETED_QUESTIONS_QUERY,
  PENDING_QUESTIONS_QUERY,
  RESOLVED_QUESTIONS_QUERY,
} from '../question/visibility-query';
import type { QuestionSummary, ServerPage, ServerPageReader } from './question-rows';

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

/** A bad status or page size: the caller's mistake, named by field (`BAD_REQUEST`). */
function listInputError(message: string): QuestionOperationError {
  return QuestionOperationError.badRequest(message);
}

/**
 * A page token that names no page of the list asked for (`NOT_FOUND`): a token is opaque, so one this list did
 * not issue is well formed and still names nothing, as an unknown question id does.
 */
function unknownPage(message: string): QuestionOperationError {
  return new QuestionOperationError('NOT_FOUND', message);
}

/** The largest page of a list, and the largest server page read. */
export const MAX_PAGE_SIZE = 1000;
const DEFAULT_PAGE_SIZE = 50;

/** Who answers: a name and the groups they proved (a login, a per-user token, a CLI's `--as` and `--group`). */
export interface Answerer {
  name: string;
  groups?: readonly string[];
}

/**
 * True when the question has an audience and `who` is in it: what "assigned to you" means. A question without an
 * audience is anyone's, and assigned to no one.
 */
export function isAssignedTo(question: Pick<QuestionSummary, 'audience'>, who: Answerer): boolean {
  return question.audience !== undefined && inAudience(question.audience, who.name, who.groups);
}

/** Options of {@link listQuestionPage}. */
export interface QuestionPageOptions {
  status?: QuestionIndexStatus;
  /** 1–1000; default 50. */
  pageSize?: number;
  pageToken?: string;
  /** Only the questions of `status` (pending by default) assigned to this answerer (see {@link isAssignedTo}). */
  assignedTo?: Answerer;
}

/** One page of a list; `nextPageToken` is opaque and absent on the last page. */
export interface QuestionSummaryPage {
  questions: QuestionSummary[];
  nextPageToken?: string;
}

/**
 * The list a page token belongs to: a status, or `assigned` (the pending questions assigned to someone) or
 * `assigned:<status>`, so a token of one list is never read as a position in another.
 */
type ListName = QuestionIndexStatus | 'assigned' | `assigned:${Exclude<QuestionIndexStatus, 'pending'>}`;

const LIST_NAMES: readonly ListName[] = [
  ...QUESTION_INDEX_STATUSES,
  'assigned',
  'assigned:answered',
  'assigned:resolved',
  'assigned:all',
];

/** What one list reads: its visibility queries (`all` has two phases) and the rows it keeps. */
interface ListSpec {
  name: ListName;
  queries: readonly string[];
  /** Absent: every row of the queries. */
  keep?: (summary: QuestionSummary) => boolean;
}

/** Where a multi-phase list stands: `all` lists the pending questions (phase 0) and then the rest (phase 1). */
interface PageCursor {
  phase: number;
  /** The server's page token, base64; empty for the first page of a phase. */
  serverToken: string;
}

const UNREADABLE_TOKEN = 'pageToken: not a page token this inbox issued';

/** A list's name as its query parameters say it, in a refusal. */
function listWords(name: ListName): string {
  if (name === 'assigned') return 'assigned=me';
  return name.startsWith('assigned:')
    ? `assigned=me&status=${name.slice('assigned:'.length)}`
    : `status ${name}`;
}

function encodeCursor(list: ListName, cursor: PageCursor): string {
  return Buffer.from(JSON.stringify([1, list, cursor.phase, cursor.serverToken])).toString('base64url');
}

function decodeCursor(token: string, list: ListSpec): PageCursor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw unknownPage(UNREADABLE_TOKEN);
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 4 ||
    parsed[0] !== 1 ||
    !LIST_NAMES.includes(parsed[1] as ListName) ||
    typeof parsed[2] !== 'number' ||
    list.queries[parsed[2]] === undefined ||
    typeof parsed[3] !== 'string'
  ) {
    throw unknownPage(UNREADABLE_TOKEN);
  }
  const tokenList = parsed[1] as ListName;
  if (tokenList !== list.name) {
    const wanted = list.name.startsWith('assigned') ? listWords(list.name) : list.name;
    throw unknownPage(`pageToken: belongs to a list of ${listWords(tokenList)}, not ${wanted}`);
  }
  return { phase: parsed[2], serverToken: parsed[3] };
}

/** The list that `options` ask for, or `BAD_REQUEST` naming the field that is out of range. */
function listSpecOf(options: QuestionPageOptions): ListSpec {
  const { status, assignedTo } = options;
  const byStatus = statusListSpec(status);
  if (assignedTo === undefined) return byStatus;
  // The audience is in each question's memo, not in a search attribute: the rows are filtered as they are read.
  const { keep } = byStatus;
  const name: ListName = status === undefined || status === 'pending' ? 'assigned' : `assigned:${status}`;
  return {
    name,
    queries: byStatus.queries,
    keep: (summary) => isAssignedTo(summary, assignedTo) && (keep === undefined || keep(summary)),
  };
}

/** The list of one status. */
function statusListSpec(status: QuestionIndexStatus | undefined): ListSpec {
  switch (status ?? 'pending') {
    case 'pending':
      return { name: 'pending', queries: [PENDING_QUESTIONS_QUERY] };
    case 'answered':
      // A completed workflow is also a question declined or expired with a recommended answer.
      return {
        name: 'answered',
        queries: [COMPLETED_QUESTIONS_QUERY],
        keep: (summary) => summary.status === 'answered',
      };
    case 'resolved':
      return { name: 'resolved', queries: [RESOLVED_QUESTIONS_QUERY] };
    case 'all':
      return { name: 'all', queries: [PENDING_QUESTIONS_QUERY, RESOLVED_QUESTIONS_QUERY] };
    default:
      throw listInputError(`status: must be one of ${QUESTION_INDEX_STATUSES.join(', ')}`);
  }
}

/**
 * How many rows to ask the server for, when `need` more are wanted and `kept` of the `scanned` rows of this page
 * were kept: exactly `need` while no row was dropped, else enough for `need` at the rate seen so far, so a
 * sparse filter (the assigned list) reads large pages instead of many small ones.
 */
function readSize(need: number, kept: number, scanned: number): number {
  if (kept === scanned) return need;
  return kept === 0 ? MAX_PAGE_SIZE : Math.min(MAX_PAGE_SIZE, Math.ceil((need * scanned) / kept));
}

/** One server page, with a refused page token reported as the caller's mistake. */
async function readServerPage(
  readPage: ServerPageReader,
  query: string,
  pageSize: number,
  serverToken: string,
): Promise<ServerPage> {
  try {
    return await readPage(query, pageSize, serverToken);
  } catch (error) {
    // The server refuses a token it cannot read (one that was tampered with) as INVALID_ARGUMENT.
    if (serverToken !== '' && (error as { code?: unknown }).code === 3) throw unknownPage(UNREADABLE_TOKEN);
    throw error;
  }
}

/** What one step of a page read: the rows kept, how many rows it looked at, and where the phase continues. */
interface ReadStep {
  kept: QuestionSummary[];
  scanned: number;
  /** The server's token right after the last row looked at; absent when the phase holds no more rows to keep. */
  next?: string;
}

/**
 * Reads from `serverToken` and keeps up to `need` rows. A server page holding more rows to keep than `need` is
 * read again up to the last row kept, so the token continues exactly after it: nothing is skipped, nothing is
 * listed twice, and the page token stays the server's own.
 */
async function readStep(
  readPage: ServerPageReader,
  list: ListSpec,
  query: string,
  serverToken: string,
  size: number,
  need: number,
): Promise<ReadStep> {
  const keep = list.keep ?? (() => true);
  let response = await readServerPage(readPage, query, size, serverToken);
  for (;;) {
    const rows = response.summaries;
    const kept: QuestionSummary[] = [];
    let looked = 0;
    while (looked < rows.length && kept.length < need) {
      const row = rows[looked++]!;
      if (keep(row)) kept.push(row);
    }
    const rest = rows.slice(looked);
    if (rest.length === 0) return definedFields({ kept, scanned: looked, next: response.nextPageToken });
    // The page is full; when nothing after it is kept either, the phase ends here and no token is needed.
    if (response.nextPageToken === undefined && !rest.some(keep)) return { kept, scanned: looked };
    const exact = await readServerPage(readPage, query, looked, serverToken);
    if (exact.summaries.at(-1)?.workflowId === rows[looked - 1]!.workflowId) {
      return definedFields({ kept, scanned: looked, next: exact.nextPageToken });
    }
    // Rows came or went between the two reads: settle on the second one.
    response = exact;
  }
}

/** A page size given to a list, checked. */
function pageSizeOf(pageSize: number | undefined): number {
  const size = pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE) {
    throw listInputError(`pageSize: must be an integer from 1 to ${MAX_PAGE_SIZE}`);
  }
  return size;
}

/**
 * One page of questions, newest first; with `all`, every pending question comes before the resolved ones; with
 * `assignedTo`, the questions of that status (pending by default) whose audience names that person or one of
 * their groups. The first page of a list that fits one server page is one visibility call; the assigned list
 * reads its questions in server pages until its page is full, not all of them.
 *
 * @throws QuestionOperationError `BAD_REQUEST` for a status or page size out of range; `NOT_FOUND` for a page
 *   token this list did not issue (or that the server refuses)
 */
export async function listQuestionPage(
  readPage: ServerPageReader,
  options: QuestionPageOptions = {},
): Promise<QuestionSummaryPage> {
  const list = listSpecOf(options);
  const pageSize = pageSizeOf(options.pageSize);
  let cursor: PageCursor =
    options.pageToken === undefined || options.pageToken === ''
      ? { phase: 0, serverToken: '' }
      : decodeCursor(options.pageToken, list);
  const found: QuestionSummary[] = [];
  let scanned = 0;
  for (;;) {
    const query = list.queries[cursor.phase];
    if (query === undefined) return { questions: found };
    const need = pageSize - found.length;
    const size = readSize(need, found.length, scanned);
    const step = await readStep(readPage, list, query, cursor.serverToken, size, need);
    found.push(...step.kept);
    scanned += step.scanned;
    cursor =
      step.next === undefined
        ? { phase: cursor.phase + 1, serverToken: '' }
        : { phase: cursor.phase, serverToken: step.next };
    if (list.queries[cursor.phase] === undefined) return { questions: found };
    if (found.length >= pageSize) return { questions: found, nextPageToken: encodeCursor(list.name, cursor) };
  }
}

/** Every pending question, a server page of 1000 at a time, through the one pager. */
export async function allPendingQuestions(readPage: ServerPageReader): Promise<QuestionSummary[]> {
  const summaries: QuestionSummary[] = [];
  let pageToken: string | undefined;
  do {
    const page = await listQuestionPage(readPage, definedFields({ pageSize: MAX_PAGE_SIZE, pageToken }));
    summaries.push(...page.questions);
    pageToken = page.nextPageToken;
  } while (pageToken !== undefined);
  return summaries;
}
