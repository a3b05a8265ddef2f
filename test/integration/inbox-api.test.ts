/**
 * The inbox's HTTP API against a real Temporal dev server and worker, over real HTTP: every route and status of
 * CONTRACT §4, the login, the CSRF check, the body cap and the event stream, and the decisions on approvals of
 * tool calls (§7) with what the agent's tool then does. Every refused request is followed by a look at the
 * question itself: nothing was recorded.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import type { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';

import { aiToolApprovalPolicy } from '../../src/ai';
import { inputSha256 } from '../../src/answer';
import { CONTENT_SECURITY_POLICY, type InboxServer } from '../../src/inbox';
import { QuestionClient } from '../../src/ops';
import { TemporalUserInteraction } from '../../src/provider';
import { createAskUserQuestionTool, requireApproval } from '../../src/tool';
import { editedCallText } from '../../src/tool/require-approval';
import { ASK_USER_QUESTION_WORKFLOW_TYPE } from '../../src/question/definitions';
import type { QuestionOutcome } from '../../src/types';
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
    assert.match(page.text, /<script type="module" src="\/inbox\.js"><\/script>/);
    assert.doesNotMatch(page.text, /<script>/, 'no inline script');
    const script = await request(inbox, 'GET', '/inbox.js');
    assert.equal(script.status, 200);
    assert.equal(script.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.doesNotMatch(script.text, /innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
    const stylesheets = [...page.text.matchAll(/<link rel="stylesheet" href="([^"]+)" \/>/g)].map(
      (m) => m[1]!,
    );
    assert.deepEqual(stylesheets, ['/inbox.css', '/question.css', '/approval.css']);
    for (const href of stylesheets) {
      const style = await request(inbox, 'GET', href);
      assert.equal(style.status, 200, href);
      assert.equal(style.headers.get('content-type'), 'text/css; charset=utf-8', href);
    }
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
    // The session itself, sealed: a compact JWE encrypted with the session key (`dir`, no wrapped key).
    assert.match(setCookie, /^ask_user_inbox=[\w-]+\.\.[\w-]+\.[\w-]+\.[\w-]+; /);
    assert.ok(!setCookie.includes('alice') && !setCookie.includes(csrfToken), 'nothing of it readable');
    assert.match(setCookie, /; HttpOnly(;|$)/);
    assert.match(setCookie, /; SameSite=Strict(;|$)/);
    assert.match(setCookie, /; Path=\/(;|$)/);
    const session = await request(inbox, 'GET', '/api/session', { headers: { cookie } });
    assert.equal(session.status, 200);
    assert.deepEqual(session.json, { name: 'alice', groups: [], csrfToken });

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

  test('GET /api/questions refuses an unknown status or page size with 400, a page token it did not issue with 404', async () => {
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
      404,
      'NOT_FOUND',
      'pageToken: not a page token this inbox issued',
    );
    assertError(
      await request(inbox, 'GET', '/api/questions?pageToken=not%20base64url', { headers: bearer() }),
      400,
      'BAD_REQUEST',
      'pageToken: must be the nextPageToken of a page (base64url)',
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

  test('POST answer to a question whose task queue no worker polls: 202, recorded for a worker to validate', async () => {
    const workflowId = 'ask-user-question/inbox-api-agent/no-worker';
    const taskQueue = `inbox-api-nobody-${process.pid}`;
    const handle = await client.workflow.start(ASK_USER_QUESTION_WORKFLOW_TYPE, {
      workflowId,
      taskQueue,
      args: [{ questions: ARGS.questions, agent: { id: AGENT_ID }, toolCallId: 'no-worker' }],
    });
    try {
      const started = Date.now();
      const answered = await request(inbox, 'POST', questionPath(workflowId, 'answer'), {
        headers: bearer(),
        body: JSON.stringify(STAGING),
      });
      assert.ok(Date.now() - started < 5_000, `answered in ${Date.now() - started} ms`);
      assert.equal(answered.status, 202, answered.text);
      const body = answered.json as QuestionOutcome & { workflowId: string };
      assert.equal(body.workflowId, workflowId);
      assert.equal(body.status, 'pending');
      assert.equal(body.awaitingWorker?.taskQueue, taskQueue);
      assert.deepEqual(body.noWorker, { taskQueue });
      // The question's record says so too, naming the answer that waits.
      const record = await request(inbox, 'GET', questionPath(workflowId), { headers: bearer() });
      const waiting = (record.json as QuestionOutcome).unvalidatedAnswers ?? [];
      assert.deepEqual(
        waiting.map((answer) => answer.answerId),
        [body.awaitingWorker?.answerId],
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

/** The input schema of the deploy tool under approval: one service at a version, on 1–10 replicas. */
const DEPLOY_SCHEMA = {
  type: 'object',
  properties: {
    service: { type: 'string', minLength: 1 },
    version: { type: 'string', pattern: '^\\d+\\.\\d+\\.\\d+$' },
    replicas: { type: 'integer', minimum: 1, maximum: 10 },
  },
  required: ['service', 'version'],
  additionalProperties: false,
};

interface DeployInput {
  service: string;
  version: string;
  replicas?: number;
}

const DEPLOY = { service: 'api', version: '1.4.2', replicas: 2 };

/** A deploy call waiting for a decision in this process: what the tool ran with, and its result. */
interface PendingApproval extends PendingCall {
  toolCallId: string;
  runs: DeployInput[];
}

/** Calls the deploy tool wrapped by `requireApproval`, and waits until its approval is pending and listed. */
async function requestDeploy(input: DeployInput = DEPLOY): Promise<PendingApproval> {
  const toolCallId = `approval-${++calls}`;
  const controller = new AbortController();
  const runs: DeployInput[] = [];
  const tool = requireApproval(
    {
      name: 'deploy',
      execute: async (call: DeployInput) => {
        runs.push(call);
        return `deployed ${call.service} ${call.version} on ${call.replicas ?? 1}`;
      },
    },
    {
      userInteraction: provider,
      inputSchema: DEPLOY_SCHEMA,
      description: (call) => `Deploy ${call.service} ${call.version}`,
    },
  );
  const result = tool.execute(input, { toolCallId, agent: { id: AGENT_ID }, signal: controller.signal });
  result.catch(() => undefined);
  const workflowId = `ask-user-question/${AGENT_ID}/${toolCallId}`;
  await waitForPendingRecord(client, workflowId);
  await waitUntilListedPending(questions, workflowId);
  return { workflowId, toolCallId, result, runs, abort: () => controller.abort() };
}

function decidePath(workflowId: string): string {
  return `${questionPath(workflowId)}/decide`;
}

/** Posts a decision with the shared token, as `name`. */
async function decide(workflowId: string, body: unknown, name = 'ops-script'): Promise<HttpResult> {
  return await request(inbox, 'POST', decidePath(workflowId), {
    headers: { ...bearer(), 'x-ask-user-name': name },
    body: JSON.stringify(body),
  });
}

/** Asserts that the approval is still pending with no decision, and that the tool has not run. */
async function assertUndecided(call: PendingApproval): Promise<void> {
  const record = await questions.get(call.workflowId);
  assert.equal(record.status, 'pending');
  assert.equal(record.decision, undefined);
  assert.equal(record.answer, undefined);
  assert.deepEqual(record.rejectedAnswers, []);
  assert.deepEqual(call.runs, []);
}

describe('approvals', () => {
  test('list and detail carry the approval; approve from a page session records the logged-in name, and the tool runs with the original input', async () => {
    const call = await requestDeploy();
    try {
      const list = await request(inbox, 'GET', '/api/questions', { headers: bearer() });
      assert.equal(list.status, 200, list.text);
      const row = (list.json as { questions: Record<string, unknown>[] }).questions.find(
        (question) => question.workflowId === call.workflowId,
      );
      assert.ok(row !== undefined, list.text);
      const { askedAt: listedAt, ...listed } = row;
      assert.equal(typeof listedAt, 'string');
      assert.deepEqual(listed, {
        workflowId: call.workflowId,
        title: 'Approve deploy: Deploy api 1.4.2',
        status: 'pending',
        questionCount: 0,
        agentId: AGENT_ID,
        toolCallId: call.toolCallId,
        kind: 'approval',
        toolName: 'deploy',
      });

      const detail = await request(inbox, 'GET', questionPath(call.workflowId), { headers: bearer() });
      assert.equal(detail.status, 200, detail.text);
      const { askedAt, ...rest } = detail.json as Record<string, unknown>;
      assert.equal(typeof askedAt, 'string');
      assert.deepEqual(rest, {
        workflowId: call.workflowId,
        kind: 'approval',
        questions: [],
        approval: {
          toolName: 'deploy',
          input: DEPLOY,
          description: 'Deploy api 1.4.2',
          inputSchema: DEPLOY_SCHEMA,
        },
        status: 'pending',
        agent: { id: AGENT_ID },
        toolCallId: call.toolCallId,
        rejectedAnswers: [],
      });

      // The page's session decides: the CSRF token is needed, and the decider is the login's name.
      const { cookie, csrfToken } = await logIn('alice');
      const json = { cookie, 'content-type': 'application/json' };
      assertError(
        await request(inbox, 'POST', decidePath(call.workflowId), {
          headers: json,
          body: '{"type":"approve"}',
        }),
        403,
        'CSRF',
        'missing or wrong x-csrf-token header',
      );
      await assertUndecided(call);
      const approved = await request(inbox, 'POST', decidePath(call.workflowId), {
        headers: { ...json, 'x-csrf-token': csrfToken },
        body: '{"type":"approve"}',
      });
      assert.equal(approved.status, 200, approved.text);
      const outcome = approved.json as Record<string, unknown> & { decision: { decidedAt: string } };
      assert.equal(outcome.workflowId, call.workflowId);
      assert.equal(outcome.kind, 'approval');
      assert.equal(outcome.status, 'answered');
      assert.deepEqual(outcome.decision, {
        type: 'approve',
        decidedBy: 'alice',
        decidedAt: outcome.decision.decidedAt,
        requestedInputSha256: inputSha256(DEPLOY),
        inputSha256: inputSha256(DEPLOY),
      });
      assert.ok(!Number.isNaN(Date.parse(outcome.decision.decidedAt)), outcome.decision.decidedAt);
      assert.deepEqual(outcome.effect, {
        asDecided: true,
        text: 'The agent runs deploy with the input it asked for.',
      });
      assert.equal(await call.result, 'deployed api 1.4.2 on 2');
      assert.deepEqual(call.runs, [DEPLOY]);

      const after = await request(inbox, 'GET', questionPath(call.workflowId), { headers: bearer() });
      assert.deepEqual((after.json as Record<string, unknown>).decision, outcome.decision);

      const history = await waitFor(`${call.workflowId} in the history`, async () => {
        const page = await request(inbox, 'GET', '/api/questions?status=resolved', { headers: bearer() });
        assert.equal(page.status, 200, page.text);
        return (page.json as { questions: Record<string, unknown>[] }).questions.find(
          (question) => question.workflowId === call.workflowId,
        );
      });
      assert.equal(history.kind, 'approval');
      assert.equal(history.toolName, 'deploy');
      assert.equal(history.status, 'answered');
      assert.equal(history.decision, 'approve');
      assert.equal(history.resolvedBy, 'alice');
    } finally {
      call.abort();
    }
  });

  test('an invalid edit is 400 naming the path and the reason and records nothing; a valid edit runs the tool with it, and the record keeps both inputs', async () => {
    const call = await requestDeploy();
    try {
      const tooMany = await decide(call.workflowId, { type: 'edit', input: { ...DEPLOY, replicas: 50 } });
      assert.equal(tooMany.status, 400, tooMany.text);
      assert.deepEqual(tooMany.json, {
        error: 'BAD_ANSWER',
        message: 'invalid decision: input.replicas: 50 is greater than 10',
        rule: 'edited-input',
      });
      const noVersion = await decide(call.workflowId, { type: 'edit', input: { service: 'api' } });
      assert.equal(noVersion.status, 400, noVersion.text);
      assert.deepEqual(noVersion.json, {
        error: 'BAD_ANSWER',
        message: 'invalid decision: input: Instance does not have required property "version"',
        rule: 'edited-input',
      });
      const noInput = await decide(call.workflowId, { type: 'edit' });
      assert.equal(noInput.status, 400, noInput.text);
      assert.deepEqual(noInput.json, {
        error: 'BAD_ANSWER',
        message: 'invalid decision: decision.input: an edit needs the input to run the tool with',
        rule: 'edited-input',
      });
      const badType = await decide(call.workflowId, { type: 'allow' });
      assert.equal(badType.status, 400, badType.text);
      // The type is the document's (the route's schema); what the other fields mean is the decision rules'.
      assert.deepEqual(badType.json, {
        error: 'BAD_REQUEST',
        message: 'type: must be one of approve, edit, reject, respond',
      });
      assertError(
        await decide(call.workflowId, { type: 'approve', decidedBy: 'mallory' }),
        400,
        'BAD_REQUEST',
        'decidedBy: comes from your login, not from the request body',
      );
      assertError(
        await request(inbox, 'POST', decidePath(call.workflowId), {
          headers: bearer(),
          body: '{"type": "approve"',
        }),
        400,
        'BAD_REQUEST',
        'body: not valid JSON',
      );
      await assertUndecided(call);

      const edited = { service: 'api', version: '1.4.3', replicas: 3 };
      const accepted = await decide(call.workflowId, { type: 'edit', input: edited });
      assert.equal(accepted.status, 200, accepted.text);
      // requireApproval runs the edited input: the edit reaches the agent as decided.
      assert.deepEqual((accepted.json as { effect: unknown }).effect, {
        asDecided: true,
        text: 'The agent runs deploy with the edited input.',
      });
      assert.equal(await call.result, 'deployed api 1.4.3 on 3');
      assert.deepEqual(call.runs, [edited]);
      const detail = await request(inbox, 'GET', questionPath(call.workflowId), { headers: bearer() });
      const record = detail.json as {
        approval: { input: unknown };
        decision: { decidedAt: string };
        status: string;
      };
      assert.equal(record.status, 'answered');
      assert.deepEqual(record.approval.input, DEPLOY);
      assert.deepEqual(record.decision, {
        type: 'edit',
        input: edited,
        decidedBy: 'ops-script',
        decidedAt: record.decision.decidedAt,
        requestedInputSha256: inputSha256(DEPLOY),
        inputSha256: inputSha256(edited),
      });
    } finally {
      call.abort();
    }
  });

  test("an edit under a hook that runs only the model's own input answers with what the agent receives: a denial suggesting it", async () => {
    const toolCallId = `approval-${++calls}`;
    const policy = aiToolApprovalPolicy({ userInteraction: provider, agent: { id: AGENT_ID } });
    const status = policy({ toolCall: { toolCallId, toolName: 'deploy', input: DEPLOY } });
    const workflowId = `ask-user-question/${AGENT_ID}/${toolCallId}`;
    await waitForPendingRecord(client, workflowId);
    await waitUntilListedPending(questions, workflowId);

    const pending = await request(inbox, 'GET', questionPath(workflowId), { headers: bearer() });
    assert.equal(pending.status, 200, pending.text);
    const record = pending.json as { approval: Record<string, unknown>; effect?: unknown };
    assert.equal(record.approval.onEdit, 'suggest');
    assert.equal(record.effect, undefined, 'no effect before a decision');

    const edited = { ...DEPLOY, version: '1.4.3' };
    const decided = await decide(workflowId, { type: 'edit', input: edited });
    assert.equal(decided.status, 200, decided.text);
    const outcome = decided.json as { decision: { type: string }; effect: unknown };
    assert.equal(outcome.decision.type, 'edit');
    const effect = {
      asDecided: false,
      text:
        'deploy does not run: this agent runs a call only with the input its model gave, so it receives a ' +
        'denial that suggests calling deploy again with the edited input.',
    };
    assert.deepEqual(outcome.effect, effect);
    const after = await request(inbox, 'GET', questionPath(workflowId), { headers: bearer() });
    assert.deepEqual((after.json as { effect: unknown }).effect, effect);
    const history = await waitFor(`${workflowId} in the history`, async () => {
      const page = await request(inbox, 'GET', '/api/questions?status=resolved', { headers: bearer() });
      assert.equal(page.status, 200, page.text);
      return (page.json as { questions: Record<string, unknown>[] }).questions.find(
        (question) => question.workflowId === workflowId,
      );
    });
    assert.equal(history.decision, 'edit');
    assert.equal(history.resolvedBy, 'ops-script');
    assert.deepEqual(history.effect, effect);
    // What the text says is what the agent receives.
    assert.deepEqual(await status, { type: 'denied', reason: editedCallText({ input: edited }, 'deploy') });
  });

  test('reject with a reason (and stop): the tool never runs, and the run is stopped; respond: the model reads the text', async () => {
    const rejected = await requestDeploy();
    const responded = await requestDeploy();
    try {
      const stopOnApprove = await decide(rejected.workflowId, { type: 'approve', stop: true });
      assert.equal(stopOnApprove.status, 400, stopOnApprove.text);
      assert.equal(
        (stopOnApprove.json as { message: string }).message,
        'invalid decision: decision.stop: not part of approve: only reject carries it',
      );
      await assertUndecided(rejected);
      const denied = await decide(
        rejected.workflowId,
        { type: 'reject', reason: 'freeze until Monday', stop: true },
        'carol',
      );
      assert.equal(denied.status, 200, denied.text);
      const denial = (denied.json as { decision: Record<string, unknown> }).decision;
      assert.deepEqual(denial, {
        type: 'reject',
        reason: 'freeze until Monday',
        stop: true,
        decidedBy: 'carol',
        decidedAt: denial.decidedAt,
        requestedInputSha256: inputSha256(DEPLOY),
      });
      await assert.rejects(rejected.result, {
        code: 'RUN_STOPPED',
        message: 'The user rejected this call of deploy: freeze until Monday, and the run was stopped',
      });
      assert.deepEqual(rejected.runs, []);

      const blank = await decide(responded.workflowId, { type: 'respond', text: '  ' });
      assert.equal(blank.status, 400, blank.text);
      assert.equal(
        (blank.json as { message: string }).message,
        'invalid decision: decision.text: must not be blank',
      );
      await assertUndecided(responded);
      const answered = await decide(responded.workflowId, {
        type: 'respond',
        text: 'Deploy 1.4.1 instead; 1.4.2 is bad.',
      });
      assert.equal(answered.status, 200, answered.text);
      assert.equal(await responded.result, 'Deploy 1.4.1 instead; 1.4.2 is bad.');
      assert.deepEqual(responded.runs, []);
    } finally {
      rejected.abort();
      responded.abort();
    }
  });

  test('a late decision is 409 naming who decided and when, and changes nothing', async () => {
    const call = await requestDeploy();
    try {
      const first = await request(inbox, 'POST', decidePath(call.workflowId), {
        headers: bearer('bob-personal-token-0123456789'),
        body: '{"type":"approve"}',
      });
      assert.equal(first.status, 200, first.text);
      assert.equal(await call.result, 'deployed api 1.4.2 on 2');
      const record = await questions.get(call.workflowId);
      assert.equal(record.decision?.decidedBy, 'bob');
      assertError(
        await decide(call.workflowId, { type: 'reject', reason: 'too late' }, 'carol'),
        409,
        'ALREADY_RESOLVED',
        `the approval was already approved by bob at ${record.resolvedAt}`,
      );
      assert.deepEqual((await questions.get(call.workflowId)).decision, record.decision);
      assert.deepEqual(call.runs, [DEPLOY]);
    } finally {
      call.abort();
    }
  });

  test('a decision on a question is refused (answer it), and an answer to an approval is refused naming the decide route; neither records anything', async () => {
    const question = await ask();
    const approval = await requestDeploy();
    try {
      assertError(
        await decide(question.workflowId, { type: 'approve' }),
        400,
        'INVALID_ARGS',
        'invalid arguments: decide: this is a question, not an approval: answer it',
      );
      await assertNothingRecorded(question.workflowId);

      const answered = await request(inbox, 'POST', questionPath(approval.workflowId, 'answer'), {
        headers: bearer(),
        body: JSON.stringify(STAGING),
      });
      assert.equal(answered.status, 400, answered.text);
      assert.deepEqual(answered.json, {
        error: 'BAD_ANSWER',
        message: `ask_user_question received an invalid answer: this is an approval of deploy, not a question: decide it (POST ${decidePath(approval.workflowId)})`,
        rule: 'approval',
      });
      await assertUndecided(approval);
      assertError(
        await decide('ask-user-question/nobody/none', { type: 'approve' }),
        404,
        'NOT_FOUND',
        'no question with id "ask-user-question/nobody/none"',
      );
    } finally {
      question.abort();
      approval.abort();
    }
  });

  test('the event stream carries approvals: pending with the tool name, resolved with the decision', async () => {
    const stream = await openEvents(inbox, { authorization: `Bearer ${INBOX_TOKEN}` });
    try {
      await stream.next((event) => event.event === 'ready');
      const call = await requestDeploy();
      try {
        const ofCall = (type: string) => (event: { event: string; data: unknown }) =>
          event.event === type && (event.data as { workflowId: string }).workflowId === call.workflowId;
        const appeared = (await stream.next(ofCall('question.pending'))).data as Record<string, unknown>;
        assert.equal(appeared.kind, 'approval');
        assert.equal(appeared.toolName, 'deploy');
        assert.equal(appeared.title, 'Approve deploy: Deploy api 1.4.2');
        const decided = await decide(call.workflowId, { type: 'edit', input: { ...DEPLOY, replicas: 4 } });
        assert.equal(decided.status, 200, decided.text);
        const resolved = (await stream.next(ofCall('question.resolved'))).data as Record<string, unknown>;
        assert.equal(resolved.kind, 'approval');
        assert.equal(resolved.status, 'answered');
        assert.equal(resolved.decision, 'edit');
      } finally {
        call.abort();
      }
    } finally {
      stream.close();
    }
  });
});
