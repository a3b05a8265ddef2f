/**
 * Paging the inbox's question index over 1,000 pending questions, against a real dev server: each question is
 * reached exactly once, newest first, through the index and through the HTTP API's opaque page tokens; with
 * `all`, every pending question comes before the resolved ones, across the page where one list ends and the
 * other begins; and `ask-user list`'s own gRPC reader (no `@temporalio/client`) gives the very same pages and
 * page tokens as the index. (Time to the first page is measured by the benchmark, not asserted here.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import type { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';

import {
  QuestionIndex,
  type IndexedQuestion,
  type InboxServer,
  type QuestionIndexStatus,
} from '../../src/inbox';
import { QuestionClient } from '../../src/ops';
import type { QuestionSummaryPage } from '../../src/ops/question-listing';
import { questionSummaryOf, type QuestionSummary } from '../../src/ops/question-rows';
import {
  ALL_QUESTIONS_QUERY,
  PENDING_QUESTIONS_QUERY,
  RESOLVED_QUESTIONS_QUERY,
} from '../../src/question/visibility-query';
import type { AskUserQuestionWorkflowInput } from '../../src/types';
import { ASK_USER_QUESTION_WORKFLOW_TYPE, type QuestionMemo } from '../../src/question/definitions';
import { bearer, request, startTestInbox } from '../helpers/inbox';
import { startTestEnvironment } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { createAskUserTestWorker, runWorkers, type RunningWorkers } from '../helpers/workers';

Runtime.install({ logger: new DefaultLogger('WARN') });

const TASK_QUEUE = `inbox-paging-${process.pid}`;
const AGENT_ID = 'paging-agent';
const QUESTION_COUNT = 1000;
const DECLINED = 3;

let env: TestWorkflowEnvironment;
let client: Client;
let worker: RunningWorkers;
let index: QuestionIndex;
let inbox: InboxServer;
const workflowIds: string[] = [];

/** Starts one question the way `TemporalUserInteraction` does: same input shape, same memo. */
async function startQuestion(number: number): Promise<void> {
  const toolCallId = `call-${String(number).padStart(4, '0')}`;
  const workflowId = `ask-user-question/${AGENT_ID}/${toolCallId}`;
  const questions = [
    { id: 'q', question: `Question number ${number}?`, options: [{ label: 'Yes' }, { label: 'No' }] },
  ];
  const input: AskUserQuestionWorkflowInput = { questions, agent: { id: AGENT_ID }, toolCallId };
  const memo: QuestionMemo = {
    title: `Question number ${number}?`,
    questionCount: 1,
    agentId: AGENT_ID,
    toolCallId,
  };
  await client.workflow.start(ASK_USER_QUESTION_WORKFLOW_TYPE, {
    workflowId,
    taskQueue: TASK_QUEUE,
    args: [input],
    memo: { ...memo },
  });
  workflowIds.push(workflowId);
}

before(async () => {
  env = await startTestEnvironment();
  client = env.client;
  worker = runWorkers([await createAskUserTestWorker(env.nativeConnection, { taskQueue: TASK_QUEUE })]);
  index = new QuestionIndex(client);
  inbox = await startTestInbox(client);
  // Fifty at a time: quick, without flooding two cores.
  for (let first = 0; first < QUESTION_COUNT; first += 50) {
    await Promise.all(Array.from({ length: 50 }, (_unused, offset) => startQuestion(first + offset)));
  }
  await waitFor(
    `${QUESTION_COUNT} questions to be counted pending`,
    async () => ((await index.counts()).pending === QUESTION_COUNT ? true : undefined),
    120_000,
  );
});

after(async () => {
  try {
    await inbox?.close();
    await worker?.stop();
  } finally {
    await env?.teardown();
  }
});

/** Every page of a list through the index; returns the pages' sizes and all rows in order. */
async function pageThroughIndex(
  status: QuestionIndexStatus,
  pageSize: number,
): Promise<{ sizes: number[]; rows: IndexedQuestion[] }> {
  const sizes: number[] = [];
  const rows: IndexedQuestion[] = [];
  let pageToken: string | undefined;
  do {
    const page = await index.list({ status, pageSize, ...(pageToken === undefined ? {} : { pageToken }) });
    sizes.push(page.questions.length);
    rows.push(...page.questions);
    pageToken = page.nextPageToken;
    assert.ok(sizes.length <= QUESTION_COUNT, 'paging ends');
  } while (pageToken !== undefined);
  return { sizes, rows };
}

function assertEachOnce(rows: IndexedQuestion[]): void {
  const ids = rows.map((row) => row.workflowId);
  assert.equal(ids.length, QUESTION_COUNT);
  assert.equal(new Set(ids).size, QUESTION_COUNT, 'no question twice');
  assert.deepEqual([...ids].sort(), [...workflowIds].sort(), 'every question once');
}

function assertNewestFirst(rows: IndexedQuestion[]): void {
  for (let position = 1; position < rows.length; position++) {
    assert.ok(
      rows[position - 1]!.askedAt >= rows[position]!.askedAt,
      `row ${position} (${rows[position]!.askedAt}) is not older than row ${position - 1} (${rows[position - 1]!.askedAt})`,
    );
  }
}

describe('paging over 1,000 pending questions', () => {
  test('the index reaches each pending question exactly once, newest first, in full pages', async () => {
    const { sizes, rows } = await pageThroughIndex('pending', 100);
    assert.deepEqual(sizes, Array.from({ length: 10 }, () => 100).concat(sizes.length === 11 ? [0] : []));
    assertEachOnce(rows);
    assertNewestFirst(rows);
    for (const row of rows) assert.equal(row.status, 'pending');
  });

  test('the HTTP API pages with its opaque token, reaching each question exactly once', async () => {
    const rows: IndexedQuestion[] = [];
    let pageToken: string | undefined;
    let pages = 0;
    do {
      const query = `status=pending&pageSize=300${pageToken === undefined ? '' : `&pageToken=${encodeURIComponent(pageToken)}`}`;
      const response = await request(inbox, 'GET', `/api/questions?${query}`, { headers: bearer() });
      assert.equal(response.status, 200, response.text);
      const body = response.json as {
        questions: IndexedQuestion[];
        nextPageToken?: string;
        counts: { pending: number };
      };
      assert.equal(body.counts.pending, QUESTION_COUNT);
      rows.push(...body.questions);
      pageToken = body.nextPageToken;
      pages++;
      assert.ok(pages <= 10, 'paging ends');
    } while (pageToken !== undefined);
    assertEachOnce(rows);
    assertNewestFirst(rows);

    // A token belongs to its list: using it for another status is refused.
    const first = await index.list({ status: 'pending', pageSize: 10 });
    const misused = await request(
      inbox,
      'GET',
      `/api/questions?status=all&pageToken=${encodeURIComponent(first.nextPageToken!)}`,
      { headers: bearer() },
    );
    assert.equal(misused.status, 404);
    assert.deepEqual(misused.json, {
      error: 'NOT_FOUND',
      message: 'pageToken: belongs to a list of status pending, not all',
    });
  });

  test('with all, every pending question comes first, then the resolved ones, each exactly once', async () => {
    const questions = new QuestionClient(client);
    const declined = workflowIds.slice(0, DECLINED);
    for (const workflowId of declined) await questions.decline(workflowId, { declinedBy: 'pager' });
    await waitFor(
      'the declined questions to leave the pending count',
      async () => ((await index.counts()).pending === QUESTION_COUNT - DECLINED ? true : undefined),
      60_000,
    );
    const { sizes, rows } = await pageThroughIndex('all', 300);
    assert.deepEqual(sizes.slice(0, 4), [300, 300, 300, 100]);
    assertEachOnce(rows);
    const statuses = rows.map((row) => row.status);
    assert.deepEqual(
      statuses.slice(0, QUESTION_COUNT - DECLINED),
      Array(QUESTION_COUNT - DECLINED).fill('pending'),
    );
    assert.deepEqual(statuses.slice(QUESTION_COUNT - DECLINED), Array(DECLINED).fill('declined'));
    assert.deepEqual(
      rows
        .slice(QUESTION_COUNT - DECLINED)
        .map((row) => row.workflowId)
        .sort(),
      [...declined].sort(),
    );
  });

  test("the one listing's rows are the SDK's own decoding of every execution: status, times and memo", async () => {
    // Runs after the test above: 997 pending and 3 declined. The listing reads raw pages (for their tokens)
    // and decodes memos itself; `client.workflow.list()` is the SDK's decoding of the same executions.
    const questions = new QuestionClient(client);
    for (const status of ['pending', 'resolved', 'all'] satisfies QuestionIndexStatus[]) {
      const listed: QuestionSummaryPage['questions'] = [];
      let pageToken: string | undefined;
      for (let pages = 0; ; pages++) {
        assert.ok(pages <= QUESTION_COUNT, 'paging ends');
        const page = await questions.listPage({
          status,
          pageSize: 400,
          ...(pageToken === undefined ? {} : { pageToken }),
        });
        listed.push(...page.questions);
        pageToken = page.nextPageToken;
        if (pageToken === undefined) break;
      }
      const query =
        status === 'pending'
          ? PENDING_QUESTIONS_QUERY
          : status === 'resolved'
            ? RESOLVED_QUESTIONS_QUERY
            : ALL_QUESTIONS_QUERY;
      const fromSdk = new Map<string, QuestionSummary>();
      for await (const info of client.workflow.list({ query }))
        fromSdk.set(info.workflowId, questionSummaryOf(info));
      assert.equal(listed.length, fromSdk.size, status);
      for (const row of listed)
        assert.deepEqual(row, fromSdk.get(row.workflowId), `${status} ${row.workflowId}`);
    }
  });
});
