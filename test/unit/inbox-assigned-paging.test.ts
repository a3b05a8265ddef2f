/**
 * The one pager over a stand-in visibility store (`ServerPageReader`): the questions assigned to someone are
 * paged through the pending questions as they are read, not by reading all of them for each page. Each assigned
 * question is listed exactly once, newest first, in full pages; a sparse list reads large server pages, a dense
 * one reads exactly what a page needs; the last page says so when its server page shows it; the page token of one list is refused
 * by another, naming both; and a question resolved between two reads of one page neither hides another nor is
 * listed twice.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { listQuestionPage, type Answerer, type QuestionPageOptions } from '../../src/ops/question-listing';
import type { QuestionSummary, ServerPage, ServerPageReader } from '../../src/ops/question-rows';
import { PENDING_QUESTIONS_QUERY } from '../../src/question/visibility-query';

/** One pending question per number, newest first; `assigned` numbers have an audience of group `sre`. */
function pendingRows(count: number, assigned: (number: number) => boolean): QuestionSummary[] {
  return Array.from({ length: count }, (_unused, position) => {
    const number = count - position;
    const row: QuestionSummary = {
      workflowId: `ask-user-question/agent/call-${String(number).padStart(5, '0')}`,
      title: `Question ${number}`,
      status: 'pending',
      questionCount: 1,
      askedAt: new Date(Date.UTC(2026, 0, 1) + number * 1000).toISOString(),
    };
    if (assigned(number)) row.audience = { groups: ['sre'] };
    return row;
  });
}

/**
 * A visibility store over `rows` (pending only), with server tokens that continue after the last row read,
 * as Temporal's are: a full page always carries a token, even when nothing follows. Records every call.
 */
function visibility(rows: QuestionSummary[]): { read: ServerPageReader; calls: number[] } {
  const calls: number[] = [];
  const read: ServerPageReader = async (query, pageSize, serverToken) => {
    assert.equal(query, PENDING_QUESTIONS_QUERY);
    calls.push(pageSize);
    const after = serverToken === '' ? undefined : Buffer.from(serverToken, 'base64').toString('utf8');
    const start = after === undefined ? 0 : rows.findIndex((row) => row.workflowId < after);
    const summaries = start < 0 ? [] : rows.slice(start, start + pageSize);
    const last = summaries.at(-1);
    const page: ServerPage = { summaries };
    if (summaries.length === pageSize && last !== undefined) {
      page.nextPageToken = Buffer.from(last.workflowId).toString('base64');
    }
    return page;
  };
  return { read, calls };
}

const ALICE: Answerer = { name: 'alice', groups: ['sre'] };

/** Every page of a list; the sizes of its pages and its rows in order. */
async function pageThrough(
  read: ServerPageReader,
  options: QuestionPageOptions,
): Promise<{ sizes: number[]; rows: QuestionSummary[] }> {
  const sizes: number[] = [];
  const rows: QuestionSummary[] = [];
  let pageToken: string | undefined;
  do {
    const page = await listQuestionPage(read, pageToken === undefined ? options : { ...options, pageToken });
    sizes.push(page.questions.length);
    rows.push(...page.questions);
    pageToken = page.nextPageToken;
    assert.ok(sizes.length < 1000, 'paging ends');
  } while (pageToken !== undefined);
  return { sizes, rows };
}

describe('the assigned list, paged through the pending questions', () => {
  test('a sparse list: each assigned question once, newest first, in full pages, from large server pages', async () => {
    const rows = pendingRows(2500, (number) => number % 400 === 0);
    const { read, calls } = visibility(rows);
    const { sizes, rows: listed } = await pageThrough(read, { assignedTo: ALICE, pageSize: 2 });
    const expected = rows.filter((row) => row.audience !== undefined).map((row) => row.workflowId);
    assert.deepEqual(expected.length, 6);
    assert.deepEqual(
      listed.map((row) => row.workflowId),
      expected,
    );
    // As with every list, the token of a full page may lead to an empty one when the server had more rows to
    // read that turned out to be no one's.
    assert.deepEqual(sizes, [2, 2, 2, 0]);
    // Never one server call per row: the first read asks for a page's worth, then a full server page at a time.
    assert.ok(calls.length <= 16, `server calls: ${calls.join(', ')}`);
    assert.ok(
      calls.slice(1).some((size) => size === 1000),
      `server calls: ${calls.join(', ')}`,
    );
  });

  test('a dense list reads exactly what each page needs, one server call per page', async () => {
    const rows = pendingRows(120, () => true);
    const { read, calls } = visibility(rows);
    const { sizes, rows: listed } = await pageThrough(read, { assignedTo: ALICE, pageSize: 50 });
    assert.deepEqual(
      listed.map((row) => row.workflowId),
      rows.map((row) => row.workflowId),
    );
    assert.deepEqual(sizes, [50, 50, 20]);
    assert.deepEqual(calls, [50, 50, 50]);
  });

  test('the last page says it is the last when the rest of its server page holds nothing more to list', async () => {
    const { read } = visibility(pendingRows(30, (number) => number % 3 === 0));
    const { sizes } = await pageThrough(read, { assignedTo: ALICE, pageSize: 4 });
    assert.deepEqual(sizes, [4, 4, 2]);
  });

  test('someone with no assigned question gets an empty list without a token', async () => {
    const { read } = visibility(pendingRows(30, (number) => number % 2 === 0));
    assert.deepEqual(await listQuestionPage(read, { assignedTo: { name: 'bob' } }), { questions: [] });
  });

  test('a question resolved between the two reads of one page neither hides another nor is listed twice', async () => {
    const rows = pendingRows(40, (number) => number % 3 === 0);
    const { read: readAll } = visibility(rows);
    let calls = 0;
    // The third call is the exact re-read of the first page: question 39 (the newest assigned) is answered.
    const read: ServerPageReader = async (query, pageSize, serverToken) => {
      calls++;
      if (calls === 3) rows.splice(1, 1);
      return await readAll(query, pageSize, serverToken);
    };
    const { rows: listed } = await pageThrough(read, { assignedTo: ALICE, pageSize: 4 });
    const ids = listed.map((row) => row.workflowId);
    assert.equal(new Set(ids).size, ids.length, 'no question twice');
    const assignedLeft = rows.filter((row) => row.audience !== undefined).map((row) => row.workflowId);
    for (const id of assignedLeft) assert.ok(ids.includes(id), `${id} listed`);
  });

  test("a list's page token is refused by another list, naming both", async () => {
    const { read } = visibility(pendingRows(30, () => true));
    const pending = await listQuestionPage(read, { pageSize: 5 });
    const assigned = await listQuestionPage(read, { assignedTo: ALICE, pageSize: 5 });
    await assert.rejects(listQuestionPage(read, { assignedTo: ALICE, pageToken: pending.nextPageToken! }), {
      code: 'NOT_FOUND',
      message: 'pageToken: belongs to a list of status pending, not assigned=me',
    });
    await assert.rejects(listQuestionPage(read, { status: 'all', pageToken: assigned.nextPageToken! }), {
      code: 'NOT_FOUND',
      message: 'pageToken: belongs to a list of assigned=me, not all',
    });
    const assignedAll = await listQuestionPage(read, { assignedTo: ALICE, status: 'all', pageSize: 5 });
    await assert.rejects(
      listQuestionPage(read, { assignedTo: ALICE, pageToken: assignedAll.nextPageToken! }),
      {
        code: 'NOT_FOUND',
        message: 'pageToken: belongs to a list of assigned=me&status=all, not assigned=me',
      },
    );
  });
});
