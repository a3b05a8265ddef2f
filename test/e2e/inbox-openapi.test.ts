/**
 * The inbox API against its own OpenAPI document (`/api/openapi.json`), fuzzed by Schemathesis from PyPI: a
 * live inbox with a worker and a dev server, questions and approvals pending in it, every documented operation
 * fuzzed with the bearer token (examples, coverage, fuzzing and stateful phases, following the document's
 * links from a list to its questions). The run keeps Schemathesis's default checks and expected statuses, but
 * for one setting (`SCHEMATHESIS_CONFIG`): the routes that change a question or a grant may refuse with 400 a
 * request that fits the document, because what they refuse there the document cannot state (a question's
 * options, an edit against the tool's input schema, a deadline's bounds, a grant's rules), and an invalid answer
 * is a bad request wherever it is found. Everything else that fits the document is never 400; a page token that names no
 * page of its list is 404.
 *
 * Then the histories show that no refused request recorded anything: each question holds exactly the
 * answers, declines, decisions and deadline moves that got a 2xx, as Schemathesis's own HAR report lists them.
 * A second run against an inbox with one route deliberately broken shows that the run can fail.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { serve, type ServerType } from '@hono/node-server';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { AddressInfo } from 'node:net';

import {
  createInboxApp,
  InboxAuth,
  QuestionIndex,
  startInboxServer,
  type InboxServer,
} from '../../src/inbox';
import { TemporalUserInteraction } from '../../src/provider';
import type { AskUserQuestion } from '../../src/types';
import { INBOX_TOKEN } from '../helpers/inbox';
import { waitForPendingRecord } from '../helpers/pending-questions';
import { ensureSchemathesis, runSchemathesis } from '../helpers/schemathesis';
import { startDevServerWithClient, type DevServerWithClient } from '../helpers/temporal';
import { startAskUserWorker, type RunningWorkers } from '../helpers/workers';

Runtime.install({ logger: new DefaultLogger('WARN') });

const TASK_QUEUE = `inbox-openapi-${process.pid}`;
/** Long enough for every phase on two busy cores; Schemathesis stops well before it. */
const RUN_TIMEOUT_MS = 12 * 60_000;

let st: string;
let stack: DevServerWithClient;
let worker: RunningWorkers;
let inbox: InboxServer;
let provider: TemporalUserInteraction;
let reportDir: string;
const seeded: string[] = [];

const QUESTIONS: AskUserQuestion[][] = [
  [{ id: 'env', question: 'Where to deploy?', options: [{ label: 'staging' }, { label: 'production' }] }],
  [
    {
      id: 'checks',
      question: 'Which checks to run?',
      header: 'Checks',
      multiSelect: true,
      options: [{ label: 'lint', description: 'fast' }, { label: 'unit' }, { label: 'e2e' }],
    },
  ],
  [{ id: 'name', question: 'What should the release be called?' }],
  [
    { id: 'db', question: 'Migrate the database?', options: [{ label: 'Yes' }, { label: 'No' }] },
    { id: 'note', question: 'Anything for the changelog?' },
  ],
];

before(async () => {
  st = ensureSchemathesis();
  // The inbox starts an agent's grants workflow on the workers' task queue, which it reads from the environment.
  process.env.ASK_USER_TASK_QUEUE = TASK_QUEUE;
  stack = await startDevServerWithClient('openapi');
  worker = await startAskUserWorker(stack.server.address, TASK_QUEUE, 'default', {
    policy: {
      agents: {
        'deadline-agent': { expireAfter: '7d' },
        'restricted-agent': { audience: { users: ['carol'] } },
      },
    },
  });
  inbox = await startInboxServer({
    index: new QuestionIndex(stack.client, { pollIntervalMs: 200 }),
    auth: new InboxAuth({ token: INBOX_TOKEN }),
    port: 0,
    // Every event stream ends after a second, so a client that reads one to its end (Schemathesis) finishes.
    streamLifetimeMs: 1000,
    // Schemathesis sends wrong tokens on purpose (the ignored_auth check); the limiter has its own test.
    loginLimit: { perAddress: 1_000_000, perName: 1_000_000 },
  });
  provider = new TemporalUserInteraction({ client: stack.client, taskQueue: TASK_QUEUE });
  reportDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ask-user-openapi-'));
  await fs.writeFile(path.join(reportDir, 'schemathesis.toml'), SCHEMATHESIS_CONFIG);
  const agents = ['contract-agent', 'deadline-agent', 'restricted-agent'];
  for (const [index, questions] of QUESTIONS.entries()) {
    for (const agentId of agents)
      seed(provider.ask({ questions, agent: { id: agentId }, toolCallId: `q${index}` }));
  }
  for (const agentId of agents) {
    seed(
      provider.requestApproval({
        toolName: 'scale',
        toolCallId: 'approval',
        agent: { id: agentId },
        description: 'Scale the api service',
        input: { service: 'api', replicas: 3 },
        inputSchema: {
          type: 'object',
          properties: { service: { type: 'string' }, replicas: { type: 'integer', maximum: 10 } },
          required: ['service', 'replicas'],
        },
      }),
    );
  }
  const listed = await waitForListed(QUESTIONS.length * agents.length + agents.length);
  seeded.push(...listed);
});

after(async () => {
  try {
    await provider?.close();
    await inbox?.close();
    await worker?.stop();
    if (reportDir !== undefined) await fs.rm(reportDir, { recursive: true, force: true });
  } finally {
    await stack?.stop();
  }
});

/** Keeps a seeded ask's promise from ending the process: it settles however the fuzzing resolves it. */
function seed(waiting: Promise<unknown>): void {
  waiting.catch(() => undefined);
}

/** The ids of the pending questions, once the inbox lists `count` of them. */
async function waitForListed(count: number): Promise<string[]> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const response = await fetch(new URL('/api/questions?pageSize=1000', inbox.url), {
      headers: { authorization: `Bearer ${INBOX_TOKEN}` },
    });
    const page = (await response.json()) as { questions: { workflowId: string }[] };
    if (page.questions.length >= count) {
      for (const { workflowId } of page.questions) await waitForPendingRecord(stack.client, workflowId);
      return page.questions.map((question) => question.workflowId);
    }
    if (Date.now() > deadline) throw new Error(`only ${page.questions.length} of ${count} questions listed`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * The run's one setting beyond Schemathesis's defaults, written as `schemathesis.toml` in the directory it runs
 * in: for the routes whose own rules refuse what the document cannot state, a 400 to a request that fits the
 * document is expected as well as the default statuses of `positive_data_acceptance`.
 */
const SCHEMATHESIS_CONFIG = `[[operations]]
include-operation-id = ["answerQuestion", "decideApproval", "extendDeadline", "createGrant", "revokeGrant"]
checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "400", "401", "403", "404", "409", "429", "5xx"]
`;

/**
 * `st run` against `baseUrl` with the bearer token, plus `extra`, in the directory that holds
 * {@link SCHEMATHESIS_CONFIG}.
 */
function stArgs(baseUrl: string, extra: string[]): string[] {
  return [
    'run',
    new URL('/api/openapi.json', baseUrl).href,
    '--header',
    `Authorization: Bearer ${INBOX_TOKEN}`,
    ...extra,
  ];
}

/** One entry of Schemathesis's HAR report. */
interface HarEntry {
  request: { method: string; url: string; headers: { name: string; value: string }[] };
  response: { status: number; content?: { text?: string } };
}

/** The questions a 200 of `POST /api/batch` says it recorded, one entry per decision. */
function batchRecorded({ request, response }: HarEntry): string[] {
  if (request.method !== 'POST' || new URL(request.url).pathname !== '/api/batch' || response.status !== 200)
    return [];
  const body = JSON.parse(response.content?.text ?? '') as {
    results: { workflowId: string; recorded: boolean }[];
  };
  return body.results.filter((item) => item.recorded).map((item) => item.workflowId);
}

/** `METHOD /path` of an entry, with a question's id written `{id}`, as the document names the route. */
function routeOf({ request }: HarEntry): string {
  const pathname = new URL(request.url).pathname.replace(/^\/api\/questions\/[^/]+/, '/api/questions/{id}');
  return `${request.method} ${pathname}`;
}

/** The request carried an Authorization header (its value is filtered out of the report). */
function hasAuthorization({ request }: HarEntry): boolean {
  return request.headers.some((header) => header.name.toLowerCase() === 'authorization');
}

describe('the inbox API against its OpenAPI document', () => {
  test('the document is OpenAPI 3.1 with every route, each with its security and responses', async () => {
    const response = await fetch(new URL('/api/openapi.json', inbox.url));
    assert.equal(response.status, 200);
    const document = (await response.json()) as {
      openapi: string;
      paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>;
      components: { securitySchemes: Record<string, unknown> };
    };
    assert.equal(document.openapi, '3.1.0');
    const operations = Object.entries(document.paths).flatMap(([route, methods]) =>
      Object.entries(methods).map(
        ([method, operation]) => `${method.toUpperCase()} ${route} ${operation.operationId}`,
      ),
    );
    assert.deepEqual(operations.sort(), [
      'GET /api/audit exportAudit',
      'GET /api/events streamEvents',
      'GET /api/grants listGrants',
      'GET /api/login getLoginMethods',
      'GET /api/questions listQuestions',
      'GET /api/questions/{id} getQuestion',
      'GET /api/session getSession',
      'POST /api/batch batchDecide',
      'POST /api/grants createGrant',
      'POST /api/grants/revoke revokeGrant',
      'POST /api/login login',
      'POST /api/logout logout',
      'POST /api/questions/{id}/answer answerQuestion',
      'POST /api/questions/{id}/decide decideApproval',
      'POST /api/questions/{id}/decline declineQuestion',
      'POST /api/questions/{id}/extend extendDeadline',
    ]);
    assert.deepEqual(Object.keys(document.components.securitySchemes).sort(), ['bearer', 'session']);
  });

  test('Schemathesis finds no failure, and no refused request recorded anything', async () => {
    const har = path.join(reportDir, 'run.har');
    const run = await runSchemathesis(
      st,
      stArgs(inbox.url, ['--report', 'har', '--report-har-path', har]),
      RUN_TIMEOUT_MS,
      reportDir,
    );
    const summary = run.output
      .split('\n')
      .filter((line) => /test cases|passed|failed|Operations|Phases|Seed/i.test(line));
    console.log(`schemathesis: ${summary.join(' | ')}`);
    assert.equal(run.exitCode, 0, run.output.slice(-6000));
    const cases = /(\d+) generated/.exec(run.output);
    assert.ok(cases !== null && Number(cases[1]) > 100, `too few cases: ${run.output.slice(-2000)}`);

    // Every 2xx POST to a question recorded one change, and every item a batch says it recorded one; every
    // refused one, none.
    const entries = (JSON.parse(await fs.readFile(har, 'utf8')) as { log: { entries: HarEntry[] } }).log
      .entries;
    // Every POST of the document was sent, and the event stream was asked both with the token and without it.
    const sent = new Set(entries.map(routeOf));
    for (const route of [
      'POST /api/batch',
      'POST /api/login',
      'POST /api/logout',
      'POST /api/questions/{id}/answer',
      'POST /api/questions/{id}/decide',
      'POST /api/questions/{id}/decline',
      'POST /api/questions/{id}/extend',
    ]) {
      assert.ok(sent.has(route), `${route} was never sent`);
    }
    const streams = entries.filter((entry) => routeOf(entry) === 'GET /api/events');
    assert.ok(
      streams.some((entry) => hasAuthorization(entry) && entry.response.status === 200),
      'no event stream was opened with the token',
    );
    assert.ok(
      streams.some((entry) => !hasAuthorization(entry) && entry.response.status === 401),
      'no event stream was refused without the token',
    );
    const accepted = new Map<string, number>();
    let refused = 0;
    for (const entry of entries) {
      for (const workflowId of batchRecorded(entry))
        accepted.set(workflowId, (accepted.get(workflowId) ?? 0) + 1);
      const { request, response } = entry;
      const match = /\/api\/questions\/([^/?]+)\/(answer|decide|decline|extend)$/.exec(
        new URL(request.url).pathname,
      );
      if (request.method !== 'POST' || match === null) continue;
      const workflowId = decodeURIComponent(match[1]!);
      if (response.status >= 200 && response.status < 300) {
        accepted.set(workflowId, (accepted.get(workflowId) ?? 0) + 1);
      } else {
        refused += 1;
      }
    }
    console.log(
      `schemathesis: ${entries.length} requests, ${refused} refused changes, ${[...accepted.values()].reduce((a, b) => a + b, 0)} accepted`,
    );
    assert.ok(refused > 0, 'the run refused no change at all: the fuzzing reached no question');
    for (const workflowId of seeded) {
      const events = await stack.client.workflow.getHandle(workflowId).fetchHistory();
      const updates = (events.events ?? []).filter(
        (event) =>
          event.workflowExecutionUpdateAcceptedEventAttributes !== undefined &&
          event.workflowExecutionUpdateAcceptedEventAttributes !== null,
      ).length;
      assert.equal(
        updates,
        accepted.get(workflowId) ?? 0,
        `${workflowId}: updates recorded vs 2xx responses`,
      );
    }
    for (const workflowId of accepted.keys())
      assert.ok(seeded.includes(workflowId), `${workflowId} was not seeded`);
  });

  test('a route that answers outside the document makes the run fail', async () => {
    // The record of a question without its status: a response the document does not allow.
    const { app } = createInboxApp({
      index: new QuestionIndex(stack.client, { pollIntervalMs: 200 }),
      auth: new InboxAuth({ token: INBOX_TOKEN }),
    });
    const broken = async (request: Request): Promise<Response> => {
      const response = await app.fetch(request);
      if (request.method !== 'GET' || !/^\/api\/questions\/[^/]+$/.test(new URL(request.url).pathname))
        return response;
      if (response.status !== 200) return response;
      const { status: _status, ...record } = (await response.json()) as Record<string, unknown>;
      return Response.json(record, { status: 200 });
    };
    const server = await new Promise<ServerType>((resolve) => {
      const started = serve({ fetch: broken, hostname: '127.0.0.1', port: 0 }, () => resolve(started));
    });
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const run = await runSchemathesis(
        st,
        stArgs(url, [
          '--include-operation-id',
          'listQuestions',
          '--include-operation-id',
          'getQuestion',
          '--phases',
          'stateful,examples,fuzzing',
          '--max-examples',
          '20',
        ]),
        RUN_TIMEOUT_MS,
        reportDir,
      );
      assert.equal(run.exitCode, 1, run.output.slice(-4000));
      assert.match(run.output, /ST108 Response violates schema/);
      assert.match(run.output, /Schema at \/components\/schemas\/QuestionRecord/);
      assert.match(run.output, /"status" is a required property/);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if ('closeAllConnections' in server) server.closeAllConnections();
    }
  });
});
