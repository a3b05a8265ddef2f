/**
 * The inbox's HTTP API against a real Temporal dev server and worker, over real HTTP: every route and status of
 * CONTRACT §4, the login, the CSRF check, the body cap and the event stream. Every refused request is followed
 * by a look at the question itself: nothing was recorded.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import type { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';

import { CONTENT_SECURITY_POLICY, type InboxServer } from '../../src/inbox';
import { QuestionClient } from '../../src/ops';
import { TemporalUserInteraction } from '../../src/provider';
import { createAskUserQuestionTool } from '../../src/tool';
import { ASK_USER_QUESTION_WORKFLOW_TYPE } from '../../src/question/definitions';
import { expectFailure } from '../helpers/interaction';
import {
  INBOX_TOKEN,
  bearer,
  openEvents,
  questionPath,
  request,
  startTestInbox,
  type HttpResult,
} from '../helpers/inbox';
import { waitForPendingRecord, waitUntilListedPending } from '../helpers/pending-questions';
import { startTestEnvironment } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { createAskUserTestWorker, runWorkers, type RunningWorkers } from '../helpers/workers';

Runtime.install({ logger: new DefaultLogger('WARN') });

const TASK_QUEUE = `inbox-api-${process.pid}`;
const AGENT_ID = 'inbox-api-agent';

const ARGS = {
  questions: [
    {
      id: 'env',
      header: 'Target',
      question: 'Where should I deploy build 1.4.2?',
      options: [{ label: 'staging (Recommended)', description: 'Safe to break' }, { label: 'production' }],
    },
  ],
};
const STAGING = { answers: [{ id: 'env', selected: ['staging (Recommended)'] }] };
const STAGING_TEXT = '{"answers":[{"id":"env","selected":["staging (Recommended)"]}]}';

let env: TestWorkflowEnvironment;
let client: Client;
let questions: QuestionClient;
let worker: RunningWorkers;
let inbox: InboxServer;
let provider: TemporalUserInteraction;

before(async () => {
  env = await startTestEnvironment();
  client = env.client;
  questions = new QuestionClient(client);
  worker = runWorkers([await createAskUserTestWorker(env.nativeConnection, { taskQueue: TASK_QUEUE })]);
  provider = new TemporalUserInteraction({ client, taskQueue: TASK_QUEUE });
  inbox = await startTestInbox(client, {
    users: [{ name: 'bob', token: 'bob-personal-token-0123456789' }],
  });
});

after(async () => {
  try {
    await inbox?.close();
    await provider?.close();
    await worker?.stop();
  } finally {
    await env?.teardown();
  }
});

/** A tool call waiting in this process: its workflow id, its result, and how to withdraw it. */
interface PendingCall {
  workflowId: string;
  result: Promise<string>;
  abort(): void;
}

let calls = 0;

/** Asks through the real tool and waits until the question is pending and listed. */
async function ask(args: unknown = ARGS): Promise<PendingCall> {
  const toolCallId = `call-${++calls}`;
  const controller = new AbortController();
  const tool = createAskUserQuestionTool({ userInteraction: provider });
  const result = tool.execute(args, { toolCallId, agent: { id: AGENT_ID }, signal: controller.signal });
  result.catch(() => undefined);
  const workflowId = `ask-user-question/${AGENT_ID}/${toolCallId}`;
  await waitForPendingRecord(client, workflowId);
  await waitUntilListedPending(questions, workflowId);
  return { workflowId, result, abort: () => controller.abort() };
}

/** Asserts that the question is still pending with nothing recorded, not even a rejected answer. */
async function assertNothingRecorded(workflowId: string): Promise<void> {
  const record = await questions.get(workflowId);
  assert.equal(record.status, 'pending');
  assert.equal(record.answer, undefined);
  assert.equal(record.answeredBy, undefined);
  assert.deepEqual(record.rejectedAnswers, []);
}

function assertError(result: HttpResult, status: number, error: string, message: string): void {
  assert.equal(result.status, status, result.text);
  assert.deepEqual(result.json, { error, message });
}

/** Logs in on the page's login route; returns the cookie header and the CSRF token. */
async function logIn(name: string): Promise<{ cookie: string; csrfToken: string; setCookie: string }> {
  const response = await request(inbox, 'POST', '/api/login', {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: INBOX_TOKEN, name }),
  });
  assert.equal(response.status, 200, response.text);
  const setCookie = response.headers.get('set-cookie') ?? '';
  const cookie = setCookie.split(';')[0]!;
  const { csrfToken } = response.json as { csrfToken: string };
  return { cookie, csrfToken, setCookie };
}

const MISSING_TOKEN = 'missing token: send Authorization: Bearer <token>, or log in';
const TOKEN_IN_URL =
  'a token in the URL is refused (URLs end up in logs and history): send Authorization: Bearer <token>, or log in on the page';

describe('the page', () => {
  test('GET / serves the page with a policy that forbids inline script; its script and style are served', async () => {
    const page = await request(inbox, 'GET', '/');
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(page.headers.get('content-security-policy'), CONTENT_SECURITY_POLICY);
    assert.match(CONTENT_SECURITY_POLICY, /script-src 'self'(;|$)/);
    assert.equal(page.headers.get('x-frame-options'), 'DENY');
    assert.match(page.text, /<script src="\/inbox\.js" defer><\/script>/);
    assert.doesNotMatch(page.text, /<script>/, 'no inline script');
    const script = await request(inbox, 'GET', '/inbox.js');
    assert.equal(script.status, 200);
    assert.equal(script.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.doesNotMatch(script.text, /innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
    const style = await request(inbox, 'GET', '/inbox.css');
    assert.equal(style.status, 200);
    assert.equal(style.headers.get('content-type'), 'text/css; charset=utf-8');
  });
});

describe('authentication', () => {
  test('401 without a token, with a wrong token, and for a token in the query string', async () => {
    assertError(await request(inbox, 'GET', '/api/questions'), 401, 'UNAUTHORIZED', MISSING_TOKEN);
    assertError(
      await request(inbox, 'GET', '/api/questions', { headers: bearer('wrong-token-0123456789abcdef') }),
      401,
      'UNAUTHORIZED',
      'wrong token',
    );
    assertError(
      await request(inbox, 'GET', '/api/questions', { headers: { authorization: 'Basic abc' } }),
      401,
      'UNAUTHORIZED',
      'wrong token',
    );
    // Refused even when the request also carries a good token: the URL has already leaked it.
    for (const parameter of ['token', 'access_token']) {
      assertError(
        await request(inbox, 'GET', `/api/questions?${parameter}=${INBOX_TOKEN}`, { headers: bearer() }),
        401,
        'UNAUTHORIZED',
        TOKEN_IN_URL,
      );
    }
    assertError(await request(inbox, 'GET', `/?token=${INBOX_TOKEN}`), 401, 'UNAUTHORIZED', TOKEN_IN_URL);
    assertError(await request(inbox, 'GET', '/api/events'), 401, 'UNAUTHORIZED', MISSING_TOKEN);
  });

  test('refused answers record nothing: no token, wrong token, token in the URL', async () => {
    const call = await ask();
    try {
      const body = JSON.stringify(STAGING);
      const path = questionPath(call.workflowId, 'answer');
      assertError(
        await request(inbox, 'POST', path, { headers: { 'content-type': 'application/json' }, body }),
        401,
        'UNAUTHORIZED',
        MISSING_TOKEN,
      );
      assertError(
        await request(inbox, 'POST', path, { headers: bearer('wrong-token-0123456789abcdef'), body }),
        401,
        'UNAUTHORIZED',
        'wrong token',
      );
      assertError(
        await request(inbox, 'POST', `${path}?token=${INBOX_TOKEN}`, { headers: bearer(), body }),
        401,
        'UNAUTHORIZED',
        TOKEN_IN_URL,
      );
      await assertNothingRecorded(call.workflowId);
    } finally {
      call.abort();
    }
  });

  test('login: wrong token 401, missing name 400; the cookie is HttpOnly and SameSite=Strict', async () => {
    const login = (body: unknown): Promise<HttpResult> =>
      request(inbox, 'POST', '/api/login', {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    assertError(
      await login({ token: 'nope-nope-nope-nope', name: 'eve' }),
      401,
      'UNAUTHORIZED',
      'wrong token',
    );
    assertError(await login({ token: INBOX_TOKEN }), 400, 'BAD_REQUEST', 'name: required');
    assertError(await login({ token: INBOX_TOKEN, name: '   ' }), 400, 'BAD_REQUEST', 'name: required');

    const { cookie, csrfToken, setCookie } = await logIn('alice');
    assert.match(setCookie, /^ask_user_inbox=[\w-]{43}; /);
    assert.match(setCookie, /; HttpOnly(;|$)/);
    assert.match(setCookie, /; SameSite=Strict(;|$)/);
    assert.match(setCookie, /; Path=\/(;|$)/);
    const session = await request(inbox, 'GET', '/api/session', { headers: { cookie } });
    assert.equal(session.status, 200);
    assert.deepEqual(session.json, { name: 'alice', csrfToken });

    // Logging out needs the CSRF token too, and ends the session.
    assertError(
      await request(inbox, 'POST', '/api/logout', { headers: { cookie } }),
      403,
      'CSRF',
      'missing or wrong x-csrf-token header',
    );
    const out = await request(inbox, 'POST', '/api/logout', {
      headers: { cookie, 'x-csrf-token': csrfToken },
    });
    assert.equal(out.status, 204);
    assertError(
      await request(inbox, 'GET', '/api/session', { headers: { cookie } }),
      401,
      'UNAUTHORIZED',
      MISSING_TOKEN,
    );
  });

  test('a post from the cookie session without the CSRF token, or with a wrong one, is refused and records nothing', async () => {
    const call = await ask();
    try {
      const { cookie, csrfToken } = await logIn('alice');
      const body = JSON.stringify(STAGING);
      const path = questionPath(call.workflowId, 'answer');
      const json = { cookie, 'content-type': 'application/json' };
      assertError(
        await request(inbox, 'POST', path, { headers: json, body }),
        403,
        'CSRF',
        'missing or wrong x-csrf-token header',
      );
      assertError(
        await request(inbox, 'POST', path, { headers: { ...json, 'x-csrf-token': `${csrfToken}x` }, body }),
        403,
        'CSRF',
        'missing or wrong x-csrf-token header',
      );
      assertError(
        await request(inbox, 'POST', questionPath(call.workflowId, 'decline'), { headers: json, body: '{}' }),
        403,
        'CSRF',
        'missing or wrong x-csrf-token header',
      );
      await assertNothingRecorded(call.workflowId);

      // With it, the answer is recorded under the login name, and the agent gets exactly its text.
      const answered = await request(inbox, 'POST', path, {
        headers: { ...json, 'x-csrf-token': csrfToken },
        body,
      });
      assert.equal(answered.status, 200, answered.text);
      assert.equal((answered.json as { answeredBy: string }).answeredBy, 'alice');
      assert.equal(await call.result, STAGING_TEXT);
    } finally {
      call.abort();
    }
  });
});

describe('questions', () => {
  test('GET /api/questions lists the pending question with its summary and the counts', async () => {
    const call = await ask();
    try {
      const list = await request(inbox, 'GET', '/api/questions', { headers: bearer() });
      assert.equal(list.status, 200, list.text);
      const body = list.json as {
        questions: Record<string, unknown>[];
        counts: { pending: number; resolved: number; total: number };
      };
      const row = body.questions.find((question) => question.workflowId === call.workflowId);
      assert.ok(row !== undefined, list.text);
      const { askedAt, ...rest } = row;
      assert.equal(typeof askedAt, 'string');
      assert.deepEqual(rest, {
        workflowId: call.workflowId,
        title: 'Target',
        status: 'pending',
        questionCount: 1,
        agentId: AGENT_ID,
        toolCallId: call.workflowId.split('/').at(-1),
      });
      assert.ok(body.counts.pending >= 1);
      assert.equal(body.counts.total, body.counts.pending + body.counts.resolved);
      for (const question of body.questions) assert.equal(question.status, 'pending');
    } finally {
      call.abort();
    }
  });

  test('GET /api/questions refuses an unknown status, page size or page token with 400', async () => {
    assertError(
      await request(inbox, 'GET', '/api/questions?status=done', { headers: bearer() }),
      400,
      'BAD_REQUEST',
      'status: must be one of pending, answered, resolved, all',
    );
    assertError(
      await request(inbox, 'GET', '/api/questions?pageSize=0', { headers: bearer() }),
      400,
      'BAD_REQUEST',
      'pageSize: must be an integer from 1 to 1000',
    );
    assertError(
      await request(inbox, 'GET', '/api/questions?pageToken=bm90LWEtdG9rZW4', { headers: bearer() }),
      400,
      'BAD_REQUEST',
      'pageToken: not a page token this inbox issued',
    );
  });

  test('GET /api/questions/:id: the full record, 404 for an unknown id', async () => {
    const call = await ask();
    try {
      const detail = await request(inbox, 'GET', questionPath(call.workflowId), { headers: bearer() });
      assert.equal(detail.status, 200, detail.text);
      const { askedAt, ...rest } = detail.json as Record<string, unknown>;
      assert.equal(typeof askedAt, 'string');
      assert.deepEqual(rest, {
        workflowId: call.workflowId,
        questions: [
          {
            id: 'env',
            header: 'Target',
            question: 'Where should I deploy build 1.4.2?',
            options: [
              { label: 'staging (Recommended)', description: 'Safe to break' },
              { label: 'production' },
            ],
          },
        ],
        status: 'pending',
        agent: { id: AGENT_ID },
        toolCallId: call.workflowId.split('/').at(-1),
        rejectedAnswers: [],
      });
    } finally {
      call.abort();
    }
    assertError(
      await request(inbox, 'GET', questionPath('ask-user-question/nobody/none'), { headers: bearer() }),
      404,
      'NOT_FOUND',
      'no question with id "ask-user-question/nobody/none"',
    );
  });

  test('POST answer: 400 with the validator reason, 415, 413 and answeredBy in the body, all recording nothing; then 200, then 409', async () => {
    const call = await ask();
    const path = questionPath(call.workflowId, 'answer');
    try {
      const invalid = await request(inbox, 'POST', path, {
        headers: bearer(),
        body: JSON.stringify({ answers: [{ id: 'env', selected: ['prod'] }] }),
      });
      assert.equal(invalid.status, 400);
      assert.deepEqual(invalid.json, {
        error: 'BAD_ANSWER',
        message:
          'ask_user_question received an invalid answer: answers[0].selected: "prod" is not an option of question "env"',
        rule: 'unknown-label',
      });
      const twoLabels = await request(inbox, 'POST', path, {
        headers: bearer(),
        body: JSON.stringify({ answers: [{ id: 'env', selected: ['staging (Recommended)', 'production'] }] }),
      });
      assert.equal(twoLabels.status, 400);
      assert.equal((twoLabels.json as { rule: string }).rule, 'single-select');

      assertError(
        await request(inbox, 'POST', path, {
          headers: bearer(),
          body: JSON.stringify({ ...STAGING, answeredBy: 'mallory' }),
        }),
        400,
        'BAD_REQUEST',
        'answeredBy: comes from your login, not from the request body',
      );
      assertError(
        await request(inbox, 'POST', path, {
          headers: { authorization: `Bearer ${INBOX_TOKEN}`, 'content-type': 'text/plain' },
          body: JSON.stringify(STAGING),
        }),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
        'the body must be JSON (content-type: application/json)',
      );
      assertError(
        await request(inbox, 'POST', path, { headers: bearer(), body: '{"answers": [' }),
        400,
        'BAD_REQUEST',
        'body: not valid JSON',
      );
      // Over the cap: a valid answer whose free-form text alone is 2 MiB.
      const huge = JSON.stringify({
        answers: [{ id: 'env', selected: [], custom: 'x'.repeat(2 * 1024 * 1024) }],
      });
      assertError(
        await request(inbox, 'POST', path, { headers: bearer(), body: huge }),
        413,
        'PAYLOAD_TOO_LARGE',
        'the request body is over 2097152 bytes',
      );
      await assertNothingRecorded(call.workflowId);

      const answered = await request(inbox, 'POST', path, {
        headers: { ...bearer(), 'x-ask-user-name': 'ops-script' },
        body: JSON.stringify(STAGING),
      });
      assert.equal(answered.status, 200, answered.text);
      const outcome = answered.json as Record<string, unknown>;
      assert.equal(outcome.workflowId, call.workflowId);
      assert.equal(outcome.status, 'answered');
      assert.equal(outcome.answeredBy, 'ops-script');
      assert.deepEqual(outcome.answer, STAGING);
      assert.equal(await call.result, STAGING_TEXT);

      const record = await questions.get(call.workflowId);
      const late = await request(inbox, 'POST', path, {
        headers: bearer(),
        body: JSON.stringify({ answers: [{ id: 'env', selected: ['production'] }] }),
      });
      assertError(
        late,
        409,
        'ALREADY_RESOLVED',
        `the question was already answered by ops-script at ${record.resolvedAt}`,
      );
      assertError(
        await request(inbox, 'POST', questionPath('ask-user-question/nobody/none', 'answer'), {
          headers: bearer(),
          body: JSON.stringify(STAGING),
        }),
        404,
        'NOT_FOUND',
        'no question with id "ask-user-question/nobody/none"',
      );
    } finally {
      call.abort();
    }
  });

  test('POST answer to a question whose task queue no worker polls: 503 NO_WORKER', async () => {
    const workflowId = 'ask-user-question/inbox-api-agent/no-worker';
    const taskQueue = `inbox-api-nobody-${process.pid}`;
    const handle = await client.workflow.start(ASK_USER_QUESTION_WORKFLOW_TYPE, {
      workflowId,
      taskQueue,
      args: [{ questions: ARGS.questions, agent: { id: AGENT_ID }, toolCallId: 'no-worker' }],
    });
    try {
      assertError(
        await request(inbox, 'POST', questionPath(workflowId, 'answer'), {
          headers: bearer(),
          body: JSON.stringify(STAGING),
        }),
        503,
        'NO_WORKER',
        `no ask-user worker is polling task queue "${taskQueue}", so the answer was not sent; start one (\`ask-user worker\`) and answer again`,
      );
    } finally {
      await handle.terminate('test done');
    }
  });

  test('a per-user token answers as its user, whatever name the request gives', async () => {
    const call = await ask();
    try {
      const answered = await request(inbox, 'POST', questionPath(call.workflowId, 'answer'), {
        headers: { ...bearer('bob-personal-token-0123456789'), 'x-ask-user-name': 'mallory' },
        body: JSON.stringify(STAGING),
      });
      assert.equal(answered.status, 200, answered.text);
      assert.equal((await questions.get(call.workflowId)).answeredBy, 'bob');
    } finally {
      call.abort();
    }
  });

  test('POST decline: declinedBy in the body refused, then 200 (the agent sees ASK_CANCELLED), then 409', async () => {
    const call = await ask();
    const path = questionPath(call.workflowId, 'decline');
    try {
      assertError(
        await request(inbox, 'POST', path, {
          headers: bearer(),
          body: JSON.stringify({ declinedBy: 'mallory' }),
        }),
        400,
        'BAD_REQUEST',
        'declinedBy: comes from your login, not from the request body',
      );
      assertError(
        await request(inbox, 'POST', path, { headers: bearer(), body: JSON.stringify({ reason: 42 }) }),
        400,
        'BAD_REQUEST',
        'reason: must be a string',
      );
      await assertNothingRecorded(call.workflowId);
      const declined = await request(inbox, 'POST', path, {
        headers: { ...bearer(), 'x-ask-user-name': 'carol' },
        body: JSON.stringify({ reason: 'wrong build' }),
      });
      assert.equal(declined.status, 200, declined.text);
      assert.equal((declined.json as { declinedBy: string }).declinedBy, 'carol');
      await expectFailure(call.result, 'ASK_CANCELLED', 'the user cancelled ask_user_question: wrong build');
      const record = await questions.get(call.workflowId);
      assertError(
        await request(inbox, 'POST', path, { headers: bearer(), body: '{}' }),
        409,
        'ALREADY_RESOLVED',
        `the question was already declined by carol at ${record.resolvedAt}`,
      );
      assertError(
        await request(inbox, 'POST', questionPath('ask-user-question/nobody/none', 'decline'), {
          headers: bearer(),
          body: '{}',
        }),
        404,
        'NOT_FOUND',
        'no question with id "ask-user-question/nobody/none"',
      );
    } finally {
      call.abort();
    }
  });

  test('the history lists resolved questions with who resolved them', async () => {
    const call = await ask();
    try {
      const answered = await request(inbox, 'POST', questionPath(call.workflowId, 'answer'), {
        headers: { ...bearer(), 'x-ask-user-name': 'dave' },
        body: JSON.stringify(STAGING),
      });
      assert.equal(answered.status, 200, answered.text);
      const row = await waitFor(`${call.workflowId} in the history`, async () => {
        const history = await request(inbox, 'GET', '/api/questions?status=resolved', { headers: bearer() });
        assert.equal(history.status, 200, history.text);
        return (history.json as { questions: Record<string, unknown>[] }).questions.find(
          (question) => question.workflowId === call.workflowId,
        );
      });
      assert.equal(row.status, 'answered');
      assert.equal(row.resolvedBy, 'dave');
      assert.equal(typeof row.resolvedAt, 'string');
    } finally {
      call.abort();
    }
  });
});

describe('GET /api/events', () => {
  test('streams a question appearing and then resolving', async () => {
    const stream = await openEvents(inbox, { authorization: `Bearer ${INBOX_TOKEN}` });
    try {
      await stream.next((event) => event.event === 'ready');
      const call = await ask();
      try {
        const appeared = await stream.next(
          (event) =>
            event.event === 'question.pending' &&
            (event.data as { workflowId: string }).workflowId === call.workflowId,
        );
        assert.equal((appeared.data as { title: string }).title, 'Target');
        const answered = await request(inbox, 'POST', questionPath(call.workflowId, 'answer'), {
          headers: bearer(),
          body: JSON.stringify(STAGING),
        });
        assert.equal(answered.status, 200, answered.text);
        const resolved = await stream.next(
          (event) =>
            event.event === 'question.resolved' &&
            (event.data as { workflowId: string }).workflowId === call.workflowId,
        );
        assert.equal((resolved.data as { status: string }).status, 'answered');
      } finally {
        call.abort();
      }
    } finally {
      stream.close();
    }
  });
});
