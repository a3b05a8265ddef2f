/**
 * Assignment against a real dev server, worker and inbox: a question's or approval's `audience` (from the
 * provider's policy, or the worker's) holds on every surface through the workflow's validators.
 * - HTTP API with per-user tokens whose file gives groups: an answer, decline or decision from outside the
 *   audience is 403 `FORBIDDEN` naming who and whom, and nothing is recorded (no update in history); a member
 *   answers; `assignedToYou` marks rows and records, `?assigned=me` lists exactly the caller's (of any
 *   status), and a bad `assigned` is a 400 naming the field.
 * - The CLI: `ask-user answer` without `--group` is refused with the same reason and exit 1; with
 *   `--group sre` it answers.
 * - The stock signal path (`QuestionClient.signalAnswer`) refuses an outsider before sending.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { DefaultLogger, Runtime } from '@temporalio/worker';

import type { InboxServer } from '../../src/inbox';
import { QuestionClient } from '../../src/ops';
import { TemporalUserInteraction } from '../../src/provider';
import { requireApproval } from '../../src/tool';
import type { ApprovalDecision, AskUserQuestion, AskUserQuestionAnswer } from '../../src/types';
import { startChild } from '../fixtures/child-process';
import { request, startTestInbox } from '../helpers/inbox';
import { startDevServerWithClient, type DevServerWithClient } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { startAskUserWorker, type RunningWorkers } from '../helpers/workers';

Runtime.install({ logger: new DefaultLogger('WARN') });

const TASK_QUEUE = `audience-${process.pid}`;
const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdef';

let stack: DevServerWithClient;
let worker: RunningWorkers;
let inbox: InboxServer;
let provider: TemporalUserInteraction;
let questions: QuestionClient;
let asked = 0;

before(async () => {
  stack = await startDevServerWithClient('audience');
  // The operator's policy on the worker assigns the deploy agent's approvals to the release managers.
  worker = await startAskUserWorker(stack.server.address, TASK_QUEUE, 'default', {
    policy: { agents: { 'deploy-agent': { audience: { users: ['carol'], groups: ['release'] } } } },
  });
  inbox = await startTestInbox(stack.client, {
    users: [
      { name: 'alice', token: ALICE, groups: ['sre'] },
      { name: 'bob', token: BOB },
    ],
  });
  provider = new TemporalUserInteraction({
    client: stack.client,
    taskQueue: TASK_QUEUE,
    policy: { agents: { 'sre-agent': { audience: { groups: ['sre'] } } } },
  });
  questions = new QuestionClient(stack.client);
});

after(async () => {
  try {
    await provider?.close();
    await inbox?.close();
    await worker?.stop();
  } finally {
    await stack?.stop();
  }
});

const RESTART: AskUserQuestion = {
  id: 'restart',
  question: 'Restart the search cluster?',
  options: [{ label: 'Now' }, { label: 'Tonight' }],
};
const NOW = [{ id: 'restart', selected: ['Now'] }];

/** Asks RESTART as `agentId`; returns the workflow id once it is pending, and the agent's promise. */
async function ask(agentId: string): Promise<{ workflowId: string; answer: Promise<AskUserQuestionAnswer> }> {
  const toolCallId = `restart-${++asked}`;
  const answer = provider.ask({ questions: [RESTART], agent: { id: agentId }, toolCallId });
  answer.catch(() => undefined);
  const workflowId = await pendingId(toolCallId);
  return { workflowId, answer };
}

async function pendingId(toolCallId: string): Promise<string> {
  return await waitFor(`${toolCallId} to be pending`, async () => {
    const listed = await questions.list('pending');
    for (const each of listed) {
      const record = await questions.get(each.workflowId).catch(() => undefined);
      if (record?.toolCallId === toolCallId && record.status === 'pending') return each.workflowId;
    }
    return undefined;
  });
}

function post(token: string, path: string, body: unknown): ReturnType<typeof request> {
  return request(inbox, 'POST', path, {
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

function get(token: string, path: string): ReturnType<typeof request> {
  return request(inbox, 'GET', path, { headers: { authorization: `Bearer ${token}` } });
}

/** Updates accepted into the question's history: a refused one leaves none. */
async function acceptedUpdates(workflowId: string): Promise<number> {
  const history = await stack.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).filter((event) => event.workflowExecutionUpdateAcceptedEventAttributes)
    .length;
}

function route(workflowId: string, action: string): string {
  return `/api/questions/${encodeURIComponent(workflowId)}/${action}`;
}

describe('assignment on the HTTP API', () => {
  test('an outsider is refused with 403 for answer and decline, and nothing is recorded; a member answers', async () => {
    const { workflowId, answer } = await ask('sre-agent');
    const refusedAnswer = await post(BOB, route(workflowId, 'answer'), { answers: NOW });
    assert.equal(refusedAnswer.status, 403);
    assert.deepEqual(refusedAnswer.json, {
      error: 'FORBIDDEN',
      message: '"bob" (no groups) may not answer this: it is assigned to groups sre',
    });
    const refusedDecline = await post(BOB, route(workflowId, 'decline'), { reason: 'not mine' });
    assert.equal(refusedDecline.status, 403);
    assert.match((refusedDecline.json as { message: string }).message, /may not decline this/);
    const record = await questions.get(workflowId);
    assert.equal(record.status, 'pending');
    assert.equal(await acceptedUpdates(workflowId), 0);

    const answered = await post(ALICE, route(workflowId, 'answer'), { answers: NOW });
    assert.equal(answered.status, 200, answered.text);
    assert.deepEqual(await answer, { answers: NOW });
    assert.equal((await questions.get(workflowId)).answeredBy, 'alice');
  });

  test("assignedToYou marks the caller's rows and records; ?assigned=me lists exactly them", async () => {
    const mine = await ask('sre-agent');
    const open = await ask('open-agent');
    const aliceList = await get(ALICE, '/api/questions?assigned=me');
    assert.equal(aliceList.status, 200, aliceList.text);
    const aliceRows = (aliceList.json as { questions: { workflowId: string; assignedToYou?: boolean }[] })
      .questions;
    assert.deepEqual(
      aliceRows.map((row) => [row.workflowId, row.assignedToYou]),
      [[mine.workflowId, true]],
    );
    const bobList = await get(BOB, '/api/questions?assigned=me');
    assert.deepEqual((bobList.json as { questions: unknown[] }).questions, []);

    const everything = (await get(ALICE, '/api/questions')).json as {
      questions: { workflowId: string; assignedToYou?: boolean; audience?: unknown }[];
    };
    const byId = new Map(everything.questions.map((row) => [row.workflowId, row]));
    assert.equal(byId.get(mine.workflowId)?.assignedToYou, true);
    assert.deepEqual(byId.get(mine.workflowId)?.audience, { groups: ['sre'] });
    assert.equal(byId.get(open.workflowId)?.assignedToYou, undefined);
    assert.equal(
      (
        (await get(ALICE, `/api/questions/${encodeURIComponent(mine.workflowId)}`)).json as {
          assignedToYou?: boolean;
        }
      ).assignedToYou,
      true,
    );
    assert.equal(
      (
        (await get(BOB, `/api/questions/${encodeURIComponent(mine.workflowId)}`)).json as {
          assignedToYou?: boolean;
        }
      ).assignedToYou,
      undefined,
    );

    // Paging through the assigned list, one at a time.
    const third = await ask('sre-agent');
    const first = (await get(ALICE, '/api/questions?assigned=me&pageSize=1')).json as {
      questions: { workflowId: string }[];
      nextPageToken?: string;
    };
    assert.equal(first.questions.length, 1);
    assert.ok(first.nextPageToken);
    const second = (
      await get(
        ALICE,
        `/api/questions?assigned=me&pageSize=1&pageToken=${encodeURIComponent(first.nextPageToken)}`,
      )
    ).json as {
      questions: { workflowId: string }[];
      nextPageToken?: string;
    };
    assert.deepEqual(
      new Set([...first.questions, ...second.questions].map((row) => row.workflowId)),
      new Set([mine.workflowId, third.workflowId]),
    );
    assert.equal(second.nextPageToken, undefined);

    for (const [query, status, message] of [
      ['assigned=you', 400, 'assigned: must be "me" (the questions assigned to you)'],
      ['assigned=me&pageToken=abc', 404, 'pageToken: not a page token this inbox issued'],
    ] as const) {
      const refused = await get(ALICE, `/api/questions?${query}`);
      assert.equal(refused.status, status, query);
      assert.equal((refused.json as { message: string }).message, message, query);
    }
    // With a status, the questions of that status assigned to the caller: here all of them, pending first.
    const all = (await get(ALICE, '/api/questions?assigned=me&status=all')).json as {
      questions: { workflowId: string; status: string; assignedToYou?: boolean }[];
    };
    assert.deepEqual(
      all.questions
        .slice(0, 2)
        .map((row) => row.workflowId)
        .sort(),
      [mine.workflowId, third.workflowId].sort(),
    );
    for (const row of all.questions) assert.equal(row.assignedToYou, true, row.workflowId);
    assert.ok(all.questions.slice(2).every((row) => row.status !== 'pending'));
    for (const each of [mine, open, third]) {
      await post(ALICE, route(each.workflowId, 'answer'), { answers: NOW });
      await each.answer;
    }
  });

  test("the worker's policy assigns an approval; an outsider's decision is 403 and records nothing; a member's decides", async () => {
    const decided: Promise<ApprovalDecision> = provider.requestApproval({
      toolName: 'deploy',
      input: { service: 'api' },
      toolCallId: 'deploy-1',
      agent: { id: 'deploy-agent' },
    });
    decided.catch(() => undefined);
    const workflowId = await pendingId('deploy-1');
    await waitFor('the worker policy audience in the record', async () =>
      (await questions.get(workflowId)).audience !== undefined ? true : undefined,
    );
    assert.deepEqual((await questions.get(workflowId)).audience, { users: ['carol'], groups: ['release'] });

    const refused = await post(ALICE, route(workflowId, 'decide'), { type: 'approve' });
    assert.equal(refused.status, 403);
    assert.equal(
      (refused.json as { message: string }).message,
      '"alice" (groups sre) may not decide this: it is assigned to users carol and groups release',
    );
    assert.equal(await acceptedUpdates(workflowId), 0);

    await questions.decide(workflowId, { type: 'approve', decidedBy: 'dan', groups: ['release'] });
    assert.equal((await decided).type, 'approve');
  });
});

describe('an approval assigned by the code that wraps the tool', () => {
  test('requireApproval({ audience }) assigns each call as its function says; only that audience decides', async () => {
    const runs: unknown[] = [];
    const dropTable = requireApproval(
      {
        name: 'drop_table',
        execute: async (input: { table: string; env: string }) => {
          runs.push(input);
          return `dropped ${input.table}`;
        },
      },
      {
        userInteraction: provider,
        audience: (input) => (input.env === 'production' ? { groups: ['dba'] } : undefined),
      },
    );
    const result = dropTable.execute(
      { table: 'sessions', env: 'production' },
      { toolCallId: 'drop-1', agent: { id: 'sre-agent' } },
    );
    result.catch(() => undefined);
    const workflowId = await pendingId('drop-1');
    // The call's own audience is over the provider's policy for sre-agent (groups sre).
    assert.deepEqual((await questions.get(workflowId)).audience, { groups: ['dba'] });
    const refused = await post(ALICE, route(workflowId, 'decide'), { type: 'approve' });
    assert.equal(refused.status, 403);
    assert.equal(runs.length, 0);
    await questions.decide(workflowId, { type: 'approve', decidedBy: 'dora', groups: ['dba'] });
    assert.equal(await result, 'dropped sessions');
    assert.deepEqual(runs, [{ table: 'sessions', env: 'production' }]);
  });
});

describe('assignment on the CLI and the signal path', () => {
  test('ask-user answer without --group is refused with exit 1; with --group sre it answers', async () => {
    const { workflowId, answer } = await ask('sre-agent');
    const run = async (args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> => {
      const child = startChild(process.execPath, ['./bin/ask-user.js', ...args], {
        TEMPORAL_ADDRESS: stack.server.address,
        TEMPORAL_NAMESPACE: 'default',
        USER: 'erin',
      });
      const exit = await child.waitForExit();
      return { code: exit.code, stdout: child.stdout(), stderr: child.stderr() };
    };
    const refused = await run(['answer', workflowId, '--select', 'restart=Now']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /"erin" \(no groups\) may not answer this: it is assigned to groups sre/);
    assert.equal(await acceptedUpdates(workflowId), 0);

    const refusedSignal = questions.signalAnswer(workflowId, { answers: NOW, answeredBy: 'mallory' });
    await assert.rejects(refusedSignal, { code: 'FORBIDDEN' });

    const answered = await run(['answer', workflowId, '--select', 'restart=Now', '--group', 'sre']);
    assert.equal(answered.code, 0, answered.stderr);
    assert.deepEqual(await answer, { answers: NOW });
    assert.equal((await questions.get(workflowId)).answeredBy, 'erin');
  });
});
