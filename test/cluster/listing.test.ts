/**
 * 1,000 pending questions listed through SQL visibility on the production-like cluster (scripts/cluster): asked
 * at once through the real tool and one durable provider, then found, every one, by the inbox (its API's count
 * and first page, then every page) and by `ask-user list`. On the dev server these paths read SQLite; here they
 * read PostgreSQL, whose visibility store sorts, pages and counts on its own.
 */
import assert from 'node:assert/strict';
import { setMaxListeners } from 'node:events';
import { after, before, describe, test } from 'node:test';

import { DefaultLogger, Runtime } from '@temporalio/worker';

import type { IndexedQuestion, InboxServer } from '../../src/inbox';
import { TemporalUserInteraction } from '../../src/provider';
import { PENDING_QUESTIONS_QUERY } from '../../src/question/visibility-query';
import { createAskUserQuestionTool } from '../../src/tool';
import { killChildren, startChild } from '../fixtures/child-process';
import { startTestCluster, type TestCluster } from '../helpers/cluster';
import { bearer, request, startTestInbox } from '../helpers/inbox';
import { waitFor } from '../helpers/wait';
import { startAskUserWorker, type RunningWorkers } from '../helpers/workers';

Runtime.install({ logger: new DefaultLogger('WARN') });

const TASK_QUEUE = `cluster-listing-${process.pid}`;
const AGENT_ID = 'listing-agent';
const QUESTION_COUNT = 1000;
/** The inbox API's page size when none is asked for. */
const DEFAULT_PAGE_SIZE = 50;

let stack: TestCluster;
let worker: RunningWorkers;
let userInteraction: TemporalUserInteraction;
let inbox: InboxServer;
/** Withdraws every question at the end. */
const turn = new AbortController();
setMaxListeners(3 * QUESTION_COUNT, turn.signal); // per call: the tool, the wait and a start being retried
const asked: Promise<string>[] = [];
const workflowIds: string[] = [];

before(async () => {
  stack = await startTestCluster('listing');
  worker = await startAskUserWorker(stack.cluster.address, TASK_QUEUE, stack.cluster.namespace);
  userInteraction = new TemporalUserInteraction({ client: stack.client, taskQueue: TASK_QUEUE });
  const tool = createAskUserQuestionTool({ userInteraction });
  for (let number = 0; number < QUESTION_COUNT; number++) {
    const toolCallId = `call-${String(number).padStart(4, '0')}`;
    const call = tool.execute(
      {
        questions: [
          { id: 'q', question: `Question number ${number}?`, options: [{ label: 'Yes' }, { label: 'No' }] },
        ],
      },
      { toolCallId, agent: { id: AGENT_ID }, signal: turn.signal },
    );
    call.catch(() => undefined); // settled by the abort in after()
    asked.push(call);
    workflowIds.push(`ask-user-question/${AGENT_ID}/${toolCallId}`);
  }
  await waitFor(
    `${QUESTION_COUNT} questions to be counted pending`,
    async () =>
      (await stack.client.workflow.count(PENDING_QUESTIONS_QUERY)).count === QUESTION_COUNT
        ? true
        : undefined,
    300_000,
  );
  inbox = await startTestInbox(stack.client);
});

after(async () => {
  try {
    await killChildren();
    await inbox?.close();
    turn.abort();
    await Promise.allSettled(asked);
    await userInteraction?.close();
    await worker?.stop();
  } finally {
    await stack?.stop();
  }
});

function assertEveryQuestionOnce(ids: string[]): void {
  assert.equal(ids.length, QUESTION_COUNT);
  assert.equal(new Set(ids).size, QUESTION_COUNT, 'no question twice');
  assert.deepEqual([...ids].sort(), [...workflowIds].sort(), 'every question');
}

describe('1,000 pending questions through SQL visibility', () => {
  test('the inbox API counts 1,000 pending, gives a full first page, and its pages reach each one once', async () => {
    const first = await request(inbox, 'GET', '/api/questions?status=pending', { headers: bearer() });
    assert.equal(first.status, 200, first.text);
    const firstPage = first.json as {
      questions: IndexedQuestion[];
      nextPageToken?: string;
      counts: { pending: number };
    };
    assert.equal(firstPage.counts.pending, QUESTION_COUNT);
    assert.equal(firstPage.questions.length, DEFAULT_PAGE_SIZE);
    for (const row of firstPage.questions) {
      assert.equal(row.status, 'pending');
      assert.equal(row.agentId, AGENT_ID);
    }
    assert.ok(firstPage.nextPageToken !== undefined, 'a first page of 50 out of 1,000 has a next page');

    const ids: string[] = [];
    let pageToken: string | undefined;
    let pages = 0;
    do {
      const query = `status=pending&pageSize=300${pageToken === undefined ? '' : `&pageToken=${encodeURIComponent(pageToken)}`}`;
      const response = await request(inbox, 'GET', `/api/questions?${query}`, { headers: bearer() });
      assert.equal(response.status, 200, response.text);
      const page = response.json as { questions: IndexedQuestion[]; nextPageToken?: string };
      ids.push(...page.questions.map((row) => row.workflowId));
      pageToken = page.nextPageToken;
      pages++;
      assert.ok(pages <= 10, 'paging ends');
    } while (pageToken !== undefined);
    assertEveryQuestionOnce(ids);
  });

  test('ask-user list --limit 1000 --json lists all 1,000', async () => {
    const env = {
      TEMPORAL_ADDRESS: stack.cluster.address,
      TEMPORAL_NAMESPACE: stack.cluster.namespace,
      ASK_USER_TASK_QUEUE: TASK_QUEUE,
    };
    const list = startChild(
      process.execPath,
      ['./bin/ask-user.js', 'list', '--limit', '1000', '--json'],
      env,
    );
    assert.deepEqual(await list.waitForExit(120_000), { code: 0, signal: null }, list.stderr());
    const rows = JSON.parse(list.stdout()) as { workflowId: string; status: string }[];
    assertEveryQuestionOnce(rows.map((row) => row.workflowId));
    assert.ok(rows.every((row) => row.status === 'pending'));

    // A full page may still offer a next one; if it does, that page is empty: there is no 1,001st question.
    const more = /^more: ask-user (list .*)$/m.exec(list.stderr());
    if (more !== null) {
      const next = startChild(process.execPath, ['./bin/ask-user.js', ...more[1]!.split(' '), '--json'], env);
      assert.deepEqual(await next.waitForExit(120_000), { code: 0, signal: null }, next.stderr());
      assert.deepEqual(JSON.parse(next.stdout()), []);
    }
  });
});
