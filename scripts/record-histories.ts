/**
 * Records the workflow histories that `test/unit/replay.test.ts` replays, so that a change to the workflow code
 * that would break questions already pending in production (a non-deterministic change) fails the tests.
 *
 *   npx tsx scripts/record-histories.ts                      every scenario
 *   npx tsx scripts/record-histories.ts reminded extended    only these (the others' files stay as they are)
 *
 * It starts a Temporal dev server and a worker, asks real questions through the `ask_user_question` tool and
 * `TemporalUserInteraction`, settles each one a different way (answered by signal after a rejected signal,
 * answered by update, declined, cancelled by the agent's abort, expired) and writes each closed workflow's
 * history to `test/histories/<name>.json`, in the JSON form `temporal workflow show --output json` prints.
 * Some questions carry a webhook URL, so their histories include the notification children; one delivery
 * child's own history is saved too. Deliveries go to an in-process fake `fetch`: nothing leaves the machine.
 * The policy scenarios (expired with the recommended answer, reminded and escalated, deadline extended) take
 * their policy from the provider or, for the reminders, from the worker, so both ways a policy reaches a
 * question are in a saved history. Two approvals under the two-person rule (`two-person-approved`,
 * `two-person-rejected`) hold the counted decisions and the `approval.progress` notification they send.
 *
 * The dev server suggests continue-as-new from 100 events (Temporal's default is 4,096), so the `continued`
 * scenario saves both runs of a question that continued as new after some 100 refused signals; every other
 * scenario stays far below that.
 *
 * Re-run it only on purpose: to add a scenario, or after a change versioned as docs/design.md ("Changing the
 * workflow") says. The histories already saved stay: they are what questions asked by older code look like, and
 * must keep replaying as long as such questions may still be open.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

import type { Client, WorkflowHandle } from '@temporalio/client';
import { historyFromJSON, historyToJSON, type History } from '@temporalio/common/lib/proto-utils';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';

import { temporalExecutable } from '../src/dev-server';
import { GrantClient, QuestionClient } from '../src/ops';
import { TemporalUserInteraction } from '../src/provider';
import { createAskUserQuestionTool } from '../src/tool';
import { getQuestionQuery, notificationPostedSignal } from '../src/question/definitions';
import { grantsWorkflowId } from '../src/question/grant-definitions';
import type { QuestionPolicies, QuestionRecord } from '../src/types';
import { waitForPendingRecord } from '../test/helpers/pending-questions';
import { deployTargetArgs, deployTargetAnswer } from '../test/helpers/questions';
import { waitFor } from '../test/helpers/wait';
import { createAskUserTestWorker } from '../test/helpers/workers';

/** Where the histories go. `test/unit/replay.test.ts` replays every `*.json` file here. */
export const HISTORIES_DIR = path.join(__dirname, '..', 'test', 'histories');

/** A history as the JSON text `temporal workflow show --output json` prints. */
export function historyToJson(history: History): string {
  return JSON.stringify(JSON.parse(historyToJSON(history)), null, 2);
}

/** Parses a history saved by {@link historyToJson} (or the Temporal CLI) for `Worker.runReplayHistories`. */
export function historyFromJson(json: unknown): History {
  return historyFromJSON(json);
}

const TASK_QUEUE = 'record-histories';
/** The queue of a second worker, one with no webhook URLs and no policy of its own. */
const PLAIN_TASK_QUEUE = 'record-histories-plain';
const AGENT = { id: 'history-recorder' };
const WEBHOOK_URL = 'https://hooks.example.test/ask-user';
const ESCALATION_URL = 'https://oncall.example.test/ask-user';
/** The agent whose questions get the worker's policy: reminders every second (two at most), an escalation. */
const REMINDED_AGENT = { id: 'history-recorder-reminded' };
const WORKER_POLICY: QuestionPolicies = {
  agents: {
    [REMINDED_AGENT.id]: {
      remindEvery: '1s',
      maxReminders: 2,
      escalateAfter: '1500ms',
      escalateTo: [ESCALATION_URL],
    },
  },
};

/** The question every scenario asks (the one `test/integration/workflow.test.ts` asks too), and the answer they give. */
const ARGS = deployTargetArgs;
const ANSWER = deployTargetAnswer;

/** History events from which the dev server suggests continue-as-new (see the header comment). */
const SUGGEST_CONTINUE_AS_NEW_AT = 100;

/** A run to save: a workflow id (its last run), or one run of it. */
type SavedRun = string | { workflowId: string; runId: string };

/**
 * Scenarios by file name. Each asks once, settles the question and returns the runs to save, by file name.
 */
type Scenario = (context: ScenarioContext) => Promise<Record<string, SavedRun>>;

interface ScenarioContext {
  client: Client;
  questions: QuestionClient;
  /** Asks through the real tool; returns the workflow id and the tool call's settled outcome. */
  ask: (
    name: string,
    options?: {
      webhook?: boolean;
      timeoutMs?: number;
      signal?: AbortSignal;
      policy?: QuestionPolicies;
      agent?: { id: string };
      workerDefaults?: boolean;
      /** Asked on the worker without defaults. */
      plainWorker?: boolean;
    },
  ) => { workflowId: string; outcome: Promise<string> };
}

/** Waits until the question's record (by query) satisfies `check`. */
async function waitForRecord(
  questions: QuestionClient,
  workflowId: string,
  what: string,
  check: (record: QuestionRecord) => boolean,
): Promise<void> {
  await waitFor(`${workflowId}: ${what}`, async () =>
    check(await questions.get(workflowId)) ? true : undefined,
  );
}

async function waitClosed(handle: WorkflowHandle): Promise<void> {
  await waitFor(
    `workflow ${handle.workflowId} to close`,
    async () => ((await handle.describe()).status.name === 'RUNNING' ? undefined : true),
    30_000,
  );
}

const scenarios: Record<string, Scenario> = {
  async 'answered-by-signal'({ client, ask }) {
    const call = ask('answered-by-signal');
    await waitForPendingRecord(client, call.workflowId);
    const handle = client.workflow.getHandle(call.workflowId);
    // An invalid signal first: recorded in rejectedAnswers and ignored.
    await handle.signal('answer', {
      answers: [{ id: 'env', selected: ['production'] }],
      answeredBy: 'mallory',
    });
    await handle.signal('answer', { ...ANSWER, answeredBy: 'alice' });
    await call.outcome;
    return { 'answered-by-signal': call.workflowId };
  },

  async 'answered-by-id'({ client, ask }) {
    const call = ask('answered-by-id', { webhook: true });
    await waitForPendingRecord(client, call.workflowId);
    const handle = client.workflow.getHandle(call.workflowId);
    // Answers carrying their id, as the ops client records one that no worker took: an invalid one (refused,
    // with the patch marker and its webhook), the same one again (ignored), then a valid one (taken).
    const refused = {
      answers: [{ id: 'env', selected: ['production'] }],
      answeredBy: 'mallory',
      answerId: 'answer-1',
    };
    await handle.signal('answer', refused);
    await handle.signal('answer', refused);
    await handle.signal('answer', { ...ANSWER, answeredBy: 'alice', answerId: 'answer-2' });
    await call.outcome;
    await client.workflow.getHandle(`${call.workflowId}/webhook/question.answer_refused/answer-1`).result();
    return { 'answered-by-id': call.workflowId };
  },

  async 'answered-by-update'({ client, questions, ask }) {
    const call = ask('answered-by-update', { webhook: true });
    await waitForPendingRecord(client, call.workflowId);
    await questions.answer(call.workflowId, { ...ANSWER, answeredBy: 'bob' });
    await call.outcome;
    const delivery = `${call.workflowId}/webhook/question.resolved`;
    await client.workflow.getHandle(delivery).result();
    return { 'answered-by-update': call.workflowId, 'webhook-delivery': delivery };
  },

  async declined({ client, questions, ask }) {
    const call = ask('declined', { webhook: true });
    await waitForPendingRecord(client, call.workflowId);
    await questions.decline(call.workflowId, { reason: 'deploys are frozen today', declinedBy: 'ops' });
    await call.outcome;
    return { declined: call.workflowId };
  },

  async cancelled({ client, ask }) {
    const controller = new AbortController();
    const call = ask('cancelled', { webhook: true, signal: controller.signal });
    await waitForPendingRecord(client, call.workflowId);
    controller.abort();
    await call.outcome;
    await waitClosed(client.workflow.getHandle(call.workflowId));
    return { cancelled: call.workflowId };
  },

  async expired({ ask }) {
    const call = ask('expired', { timeoutMs: 1_000 });
    await call.outcome;
    return { expired: call.workflowId };
  },

  async 'expired-recommended'({ ask }) {
    const call = ask('expired-recommended', {
      webhook: true,
      policy: { expireAfter: '1s', onExpiry: 'recommended' },
    });
    await call.outcome;
    return { 'expired-recommended': call.workflowId };
  },

  async reminded({ client, questions, ask }) {
    const call = ask('reminded', { webhook: true, agent: REMINDED_AGENT });
    await waitForPendingRecord(client, call.workflowId);
    await waitForRecord(
      questions,
      call.workflowId,
      'two reminders and the escalation',
      (record) => record.remindersSent === 2 && record.escalatedAt !== undefined,
    );
    await questions.answer(call.workflowId, { ...ANSWER, answeredBy: 'carol' });
    await call.outcome;
    return { reminded: call.workflowId };
  },

  // `workerDefaults: false`: no webhook-targets local activity, even on the worker with defaults.
  async 'without-worker-defaults'({ client, questions, ask }) {
    const call = ask('without-worker-defaults', { webhook: true, workerDefaults: false });
    await waitForPendingRecord(client, call.workflowId);
    await questions.answer(call.workflowId, { ...ANSWER, answeredBy: 'erin' });
    await call.outcome;
    return { 'without-worker-defaults': call.workflowId };
  },

  // On the worker without defaults a question runs no local activity and records no marker (with and without a
  // webhook of its own, which makes the question's first task start a delivery).
  async 'plain-worker'({ client, ask }) {
    const call = ask('plain-worker', { plainWorker: true });
    await waitForPendingRecord(client, call.workflowId);
    await client.workflow.getHandle(call.workflowId).signal('answer', { ...ANSWER, answeredBy: 'grace' });
    await call.outcome;
    return { 'plain-worker': call.workflowId };
  },

  async 'plain-worker-webhook'({ client, questions, ask }) {
    const call = ask('plain-worker-webhook', { plainWorker: true, webhook: true });
    await waitForPendingRecord(client, call.workflowId);
    await questions.answer(call.workflowId, { ...ANSWER, answeredBy: 'heidi' });
    await call.outcome;
    return { 'plain-worker-webhook': call.workflowId };
  },

  // A question that continued as new: reminded and escalated by the worker's policy, a chat receipt reported,
  // its deadline moved, then refused signals until the server suggested continuing; the next run took another
  // extension and a refused signal, and the answer.
  async continued({ client, questions, ask }) {
    const call = ask('continued', { webhook: true, agent: REMINDED_AGENT, policy: { expireAfter: '1h' } });
    await waitForPendingRecord(client, call.workflowId);
    const handle = client.workflow.getHandle(call.workflowId);
    const { runId: firstRunId } = await handle.describe();
    await waitForRecord(
      questions,
      call.workflowId,
      'two reminders and the escalation',
      (record) => record.remindersSent === 2 && record.escalatedAt !== undefined,
    );
    await handle.signal(notificationPostedSignal, {
      target: 'slack-bot:C0RECORD',
      channel: 'C0RECORD',
      ts: '1764720000.000200',
    });
    await questions.extendDeadline(call.workflowId, '30m', 'ops');
    await questions.extendDeadline(call.workflowId, '-10m', 'ops');
    for (let sent = 0; (await handle.describe()).runId === firstRunId; sent += 10) {
      if (sent > 10 * SUGGEST_CONTINUE_AS_NEW_AT) throw new Error('the question did not continue as new');
      await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          handle.signal('answer', {
            answers: [{ id: 'env', selected: [`region-${sent + index}`] }],
            answeredBy: 'mallory',
          }),
        ),
      );
      await handle.query(getQuestionQuery);
    }
    const { runId: nextRunId } = await handle.describe();
    await waitForRecord(
      questions,
      call.workflowId,
      'the continued run',
      (record) => record.status === 'pending',
    );
    await questions.extendDeadline(call.workflowId, '5m', 'ops');
    await handle.signal('answer', { answers: [{ id: 'env', selected: ['moon'] }], answeredBy: 'mallory' });
    await questions.answer(call.workflowId, { ...ANSWER, answeredBy: 'kate' });
    await call.outcome;
    return {
      'continued-as-new': { workflowId: call.workflowId, runId: firstRunId },
      'continued-answered': { workflowId: call.workflowId, runId: nextRunId },
    };
  },

  async extended({ client, questions, ask }) {
    const call = ask('extended', { policy: { expireAfter: '2s' } });
    const pending = await waitForPendingRecord(client, call.workflowId);
    await questions.extendDeadline(call.workflowId, '2s', 'ops');
    // Past the first deadline, before the new one: the answer is taken.
    const firstDeadline = Date.parse(pending.expiresAt ?? '');
    await waitFor('the first deadline to pass', () => (Date.now() > firstDeadline + 200 ? true : undefined));
    await questions.answer(call.workflowId, { ...ANSWER, answeredBy: 'dave' });
    await call.outcome;
    return { extended: call.workflowId };
  },

  async 'two-person-approved'({ client, questions }) {
    // The two-person rule: alice's approval is counted (the call waits, approval.progress goes out), bob's
    // completes it.
    const decision = await twoPersonApproval(
      client,
      'two-person-approved',
      { requiredApprovals: 2 },
      async (id) => {
        await questions.decide(id, { type: 'approve', decidedBy: 'alice' });
        await questions.decide(id, { type: 'approve', decidedBy: 'bob' });
      },
    );
    return { 'two-person-approved': decision };
  },

  async 'grants-lone'({ client, questions }) {
    // One agent's grants workflow: a grant, an approval it covers (no person), the grant revoked. Ended by
    // terminating it (a grants workflow runs until it continues as new).
    const agentId = 'history-recorder-grants';
    const grants = new GrantClient(questions, TASK_QUEUE);
    const grant = await grants.grant({ agentId, toolName: 'deploy', expireAfter: '1h', grantedBy: 'alice' });
    await coveredApproval(client, agentId, 'grants-lone-covered');
    await grants.revoke(grant.id, 'bob');
    await client.workflow.getHandle(grantsWorkflowId(agentId)).terminate('recorded');
    return { 'grants-lone': grantsWorkflowId(agentId) };
  },

  async 'grants-at-once'({ client, questions }) {
    // Three grants sent at once, which reach the workflow on one task, an approval one of them covers, and the
    // three revoked at once.
    const agentId = 'history-recorder-grants-at-once';
    const grants = new GrantClient(questions, TASK_QUEUE);
    const made = await Promise.all(
      ['deploy', 'restart', 'rollback'].map((toolName) =>
        grants.grant({ agentId, toolName, expireAfter: '1h', grantedBy: 'alice' }),
      ),
    );
    await coveredApproval(client, agentId, 'grants-at-once-covered');
    await Promise.all(made.map((grant) => grants.revoke(grant.id, 'bob')));
    await client.workflow.getHandle(grantsWorkflowId(agentId)).terminate('recorded');
    return { 'grants-at-once': grantsWorkflowId(agentId) };
  },

  async 'two-person-rejected'({ client, questions }) {
    // Rejections counted too: alice's rejection waits for bob's decline, which denies.
    const policy = { requiredApprovals: 2, requiredRejections: 2 };
    const decision = await twoPersonApproval(client, 'two-person-rejected', policy, async (id) => {
      await questions.decide(id, { type: 'reject', reason: 'risky', decidedBy: 'alice' });
      await questions.decline(id, { reason: 'agreed', declinedBy: 'bob' });
    });
    return { 'two-person-rejected': decision };
  },
};

/**
 * Asks to approve a deploy requested by carol under `policy` (with `forbidSelfApproval`), on the webhook URL;
 * `decide` settles it. Returns the workflow id once the agent has its decision.
 */
async function twoPersonApproval(
  client: Client,
  toolCallId: string,
  policy: QuestionPolicies,
  decide: (workflowId: string) => Promise<void>,
): Promise<string> {
  const provider = new TemporalUserInteraction({
    client,
    taskQueue: TASK_QUEUE,
    webhookUrls: [WEBHOOK_URL],
    policy: { ...policy, forbidSelfApproval: true },
  });
  try {
    const workflowId = `ask-user-question/${AGENT.id}/${toolCallId}`;
    const decision = provider.requestApproval({
      toolName: 'deploy',
      toolCallId,
      agent: AGENT,
      input: { service: 'api', version: '1.4.2' },
      requestedBy: 'carol',
    });
    await waitForPendingRecord(client, workflowId);
    await decide(workflowId);
    await decision;
    return workflowId;
  } finally {
    await provider.close();
  }
}

/** Requests approval of a `deploy` call by `agentId`, which a grant of the agent covers: no person decides. */
async function coveredApproval(client: Client, agentId: string, toolCallId: string): Promise<void> {
  const provider = new TemporalUserInteraction({ client, taskQueue: TASK_QUEUE });
  try {
    const decision = await provider.requestApproval({
      toolName: 'deploy',
      toolCallId,
      agent: { id: agentId },
      input: { service: 'api', version: '1.4.2' },
    });
    if (decision.type !== 'approve' || decision.grant === undefined)
      throw new Error(`${toolCallId}: the grant did not cover the call (${JSON.stringify(decision)})`);
  } finally {
    await provider.close();
  }
}

async function main(only: string[]): Promise<void> {
  const unknown = only.filter((name) => !Object.hasOwn(scenarios, name));
  if (unknown.length > 0) {
    throw new Error(`no scenario ${unknown.join(', ')} (scenarios: ${Object.keys(scenarios).join(', ')})`);
  }
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: temporalExecutable(),
      ip: '127.0.0.1',
      extraArgs: [
        '--dynamic-config-value',
        `limit.historyCount.suggestContinueAsNew=${SUGGEST_CONTINUE_AS_NEW_AT}`,
      ],
    },
  });
  try {
    const worker = await createAskUserTestWorker(env.nativeConnection, {
      taskQueue: TASK_QUEUE,
      webhooks: { fetch: async () => new Response(null, { status: 204 }) },
      policy: WORKER_POLICY,
    });
    const plainWorker = await createAskUserTestWorker(env.nativeConnection, {
      taskQueue: PLAIN_TASK_QUEUE,
      webhooks: { fetch: async () => new Response(null, { status: 204 }) },
    });
    const client = env.client;
    const questions = new QuestionClient(client);
    const context: ScenarioContext = {
      client,
      questions,
      ask: (name, options = {}) => {
        const tool = createAskUserQuestionTool({
          userInteraction: new TemporalUserInteraction({
            client,
            taskQueue: options.plainWorker === true ? PLAIN_TASK_QUEUE : TASK_QUEUE,
            ...(options.webhook === true ? { webhookUrls: [WEBHOOK_URL] } : {}),
            ...(options.timeoutMs === undefined ? {} : { questionTimeoutMs: options.timeoutMs }),
            ...(options.policy === undefined ? {} : { policy: options.policy }),
            ...(options.workerDefaults === undefined ? {} : { workerDefaults: options.workerDefaults }),
          }),
        });
        const agent = options.agent ?? AGENT;
        const outcome = tool
          .execute(ARGS, {
            toolCallId: name,
            agent,
            ...(options.signal ? { signal: options.signal } : {}),
          })
          .catch((error: unknown) => (error instanceof Error ? error.message : String(error)));
        return { workflowId: `ask-user-question/${agent.id}/${name}`, outcome };
      },
    };

    await mkdir(HISTORIES_DIR, { recursive: true });
    await plainWorker.runUntil(
      worker.runUntil(async () => {
        for (const [name, scenario] of Object.entries(scenarios)) {
          if (only.length > 0 && !only.includes(name)) continue;
          const saved = await scenario(context);
          for (const [file, run] of Object.entries(saved)) {
            const handle =
              typeof run === 'string'
                ? client.workflow.getHandle(run)
                : client.workflow.getHandle(run.workflowId, run.runId);
            const { workflowId } = handle;
            await waitClosed(handle);
            const history = await handle.fetchHistory();
            const target = path.join(HISTORIES_DIR, `${file}.json`);
            await writeFile(target, `${historyToJson(history)}\n`);
            const status = (await handle.describe()).status.name;
            console.log(
              `${name}: ${workflowId} (${status}, ${history.events?.length ?? 0} events) -> ${path.relative(process.cwd(), target)}`,
            );
          }
        }
      }),
    );
  } finally {
    await env.teardown();
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(
      `record-histories: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    process.exitCode = 1;
  });
}
