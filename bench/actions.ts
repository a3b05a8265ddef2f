/**
 * What a question costs in Temporal Cloud's billable actions (`billable-actions.ts`), against the floor's two (a
 * start and a signal, or a start and an update). Each workload asks and answers a few questions one at a time on
 * the run's server; their histories are read afterwards (a question's webhook deliveries, child workflows, with
 * it), and the queries its answering side made are added (a query leaves no event). A question that continued as
 * new is counted from the two runs the replay test keeps (`test/histories/continued-*.json`, recorded on a dev
 * server that suggests continue-as-new at 100 events).
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

import { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';

import { TemporalUserInteraction, answerSignal, createAskUserQuestionTool, requireApproval } from '../src';
import { QuestionClient } from '../src/ops';
import { HISTORIES_DIR, historyFromJson } from '../scripts/record-histories';
import {
  averageActions,
  billableActions,
  describeKinds,
  withQueries,
  type ActionCount,
} from './billable-actions';
import {
  floorAnswerSignal,
  floorAnswerUpdate,
  floorSignalWorkflow,
  floorUpdateWorkflow,
} from './floor-workflows';
import { CallCounter, countedConnection, diffCounts } from './grpc-calls';
import { markdownTable } from './report';
import {
  BENCH_AGENT,
  StartNotices,
  answerFor,
  benchArgs,
  checkReceived,
  type TemporalTarget,
} from './workloads';

type History = temporal.api.history.v1.IHistory;

/** One row: a workload's actions per question, and what those beyond the floor's buy. */
export interface ActionsRow {
  name: string;
  questions: number;
  actions: ActionCount;
  floor: number;
  buys: string;
}

/** How one workload asks and answers one question; resolves to the question's workflow id. */
type Ask = (key: string) => Promise<string>;

interface ActionsWorkload {
  name: string;
  /** Actions the floor spends on the same exchange. */
  floor: number;
  buys: string;
  ask: Ask;
}

/** The question's history and those of the child workflows it started (its webhook deliveries). */
async function historiesOf(client: Client, workflowId: string): Promise<History[]> {
  const own = await client.workflow.getHandle(workflowId).fetchHistory();
  const children = (own.events ?? []).flatMap((event) => {
    const id = event.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
    return id ? [id] : [];
  });
  // A delivery is read once it has ended: the resolved notification's starts as the question closes.
  const childHistories = await Promise.all(
    children.map(async (id) => {
      const child = client.workflow.getHandle(id);
      await child.result().catch(() => undefined);
      return await child.fetchHistory();
    }),
  );
  return [own, ...childHistories];
}

/**
 * The actions of a question and its children: a child's own start is the second of the two actions its parent's
 * initiation counts, so it is not counted again.
 */
function countFamily([own, ...children]: History[]): ActionCount {
  const counts = [billableActions(own?.events ?? [])];
  for (const child of children) {
    const count = billableActions(child.events ?? []);
    const starts = count.byKind['workflow start'] ?? 0;
    delete count.byKind['workflow start'];
    counts.push({ ...count, total: count.total - starts });
  }
  return averageActions(counts, 1);
}

/** A local HTTP receiver for the reminder workload's webhooks: answers 204 to everything. */
async function webhookReceiver(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(204).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/ask-user`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const APPROVAL_SCHEMA = {
  type: 'object',
  properties: { service: { type: 'string' } },
  required: ['service'],
} as const;

/** The reminder workload's policy: two reminders a second apart, then the answer. */
const REMINDERS = 2;
const REMIND_EVERY_MS = 1_000;

/**
 * Waits until all the reminders' timers of `workflowId` have fired, reading its history (which is no action: a
 * query would be one).
 */
async function remindersFired(client: Client, workflowId: string): Promise<void> {
  for (const started = Date.now(); Date.now() - started < 60_000;) {
    const { events } = await client.workflow.getHandle(workflowId).fetchHistory();
    const fired = (events ?? []).filter((event) => event.timerFiredEventAttributes).length;
    if (fired >= REMINDERS) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${workflowId}: ${REMINDERS} reminders did not fire within 60 s`);
}

/** Counts each workload's actions over `questions` questions asked and answered one at a time. */
export async function runBillableActions(
  target: TemporalTarget,
  floorQueue: string,
  oursQueue: string,
  questions: number,
): Promise<ActionsRow[]> {
  const agentCalls = new CallCounter();
  const answererCalls = new CallCounter();
  const agentConnection = await countedConnection(agentCalls, { address: target.address });
  const answererConnection = await countedConnection(answererCalls, { address: target.address });
  const receiver = await webhookReceiver();
  try {
    const starts = new StartNotices();
    const agentClient = new Client({
      connection: agentConnection,
      namespace: 'default',
      interceptors: { workflow: [starts.interceptor] },
    });
    const answerer = new Client({ connection: answererConnection, namespace: 'default' });
    const ops = new QuestionClient(answerer);
    const provider = new TemporalUserInteraction({ client: agentClient, taskQueue: oursQueue });
    const tool = createAskUserQuestionTool({ userInteraction: provider });
    const reminded = createAskUserQuestionTool({
      userInteraction: new TemporalUserInteraction({
        client: agentClient,
        taskQueue: oursQueue,
        webhookUrls: [receiver.url],
        policy: { remindEvery: `${REMIND_EVERY_MS}ms`, maxReminders: REMINDERS },
      }),
    });
    const answerOf = (key: string) => ({ ...answerFor(key), answeredBy: 'bench-answerer' });

    const floor =
      (via: 'signal' | 'update'): Ask =>
      async (key) => {
        const workflowId = `bench-actions-floor-${via}/${key}`;
        const handle = await agentClient.workflow.start(
          via === 'signal' ? floorSignalWorkflow : floorUpdateWorkflow,
          {
            workflowId,
            taskQueue: floorQueue,
            args: [{ questions: benchArgs.questions }],
          },
        );
        const answering = answerer.workflow.getHandle(workflowId);
        if (via === 'signal') await answering.signal(floorAnswerSignal, answerOf(key));
        else await answering.executeUpdate(floorAnswerUpdate, { args: [answerOf(key)] });
        await handle.result();
        return workflowId;
      };
    const ours =
      (answer: (workflowId: string, key: string) => Promise<void>, asking = tool): Ask =>
      async (key) => {
        const received = asking.execute(benchArgs, { toolCallId: key, agent: BENCH_AGENT });
        received.catch(() => undefined);
        const workflowId = await starts.started(key, received);
        await answer(workflowId, key);
        checkReceived(key, await received);
        return workflowId;
      };
    const deploy = requireApproval(
      { name: 'deploy', execute: (input: { service: string }) => `deployed ${input.service}` },
      { userInteraction: provider, description: 'Roll out a build', inputSchema: APPROVAL_SCHEMA },
    );

    const workloads: ActionsWorkload[] = [
      { name: 'floor, signal', floor: 2, buys: '', ask: floor('signal') },
      { name: 'floor, update', floor: 2, buys: '', ask: floor('update') },
      {
        name: 'ours, QuestionClient.answer (MCP answer_question; the inbox answer route)',
        floor: 2,
        buys: 'nothing beyond the floor',
        ask: ours(async (workflowId, key) => {
          await ops.answer(workflowId, answerOf(key));
        }),
      },
      {
        name: 'ours, read then QuestionClient.answer (ask-user answer, a Slack click, the inbox page opened)',
        floor: 2,
        buys: 'the query: the record shown to the person (questions, options, who may answer, refusals so far), live from the worker',
        ask: ours(async (workflowId, key) => {
          await ops.get(workflowId);
          await ops.answer(workflowId, answerOf(key));
        }),
      },
      {
        name: 'ours, raw answer signal',
        floor: 2,
        buys: 'nothing beyond the floor',
        ask: ours(async (workflowId, key) => {
          await answerer.workflow.getHandle(workflowId).signal(answerSignal, answerOf(key));
        }),
      },
      {
        name: 'ours, approval decided with QuestionClient.decide',
        floor: 2,
        buys: 'nothing beyond the floor',
        ask: async (key) => {
          const result = deploy.execute({ service: key }, { toolCallId: key, agent: BENCH_AGENT });
          result.catch(() => undefined);
          const workflowId = await starts.started(key, result);
          await ops.decide(workflowId, { type: 'approve', decidedBy: 'bench-answerer' });
          if ((await result) !== `deployed ${key}`) throw new Error(`approval ${key} did not run the tool`);
          return workflowId;
        },
      },
      {
        name: `ours, reminder policy with a webhook (${REMINDERS} reminders, then answered)`,
        floor: 2,
        buys:
          'per reminder: its timer (1) and its webhook delivery, a child workflow (2) running one activity (1); the ' +
          'pending and the resolved notifications are deliveries too (3 each)',
        ask: ours(async (workflowId, key) => {
          await remindersFired(agentClient, workflowId);
          await ops.answer(workflowId, answerOf(key));
        }, reminded),
      },
    ];

    const rows: ActionsRow[] = [];
    for (const workload of workloads) {
      const counts: ActionCount[] = [];
      for (let index = 0; index < questions; index += 1) {
        const key = `actions-${workload.name.split(',')[0]}-${rows.length}-${index}`.replace(
          /[^a-z0-9-]+/gi,
          '-',
        );
        const before = answererCalls.read();
        const workflowId = await workload.ask(key);
        const queries = diffCounts(before, answererCalls.read()).byMethod.QueryWorkflow ?? 0;
        counts.push(withQueries(countFamily(await historiesOf(answerer, workflowId)), queries));
      }
      rows.push({
        name: workload.name,
        questions,
        actions: averageActions(counts),
        floor: workload.floor,
        buys: workload.buys,
      });
    }
    rows.push(continuedAsNewRow());
    return rows;
  } finally {
    await receiver.close();
    await agentConnection.close();
    await answererConnection.close();
  }
}

/** The recorded question that continued as new: both runs, their children not included (not recorded). */
function continuedAsNewRow(): ActionsRow {
  const read = (name: string): History =>
    historyFromJson(JSON.parse(fs.readFileSync(path.join(HISTORIES_DIR, name), 'utf8')) as unknown);
  const runs = [read('continued-as-new.json'), read('continued-answered.json')].map((history) =>
    billableActions(history.events ?? []),
  );
  return {
    name: 'ours, a question that continued as new (recorded: reminded, escalated, 100+ refused signals; both runs, without its deliveries)',
    questions: 1,
    actions: averageActions(runs, 1),
    floor: 2,
    buys: "continuing as new itself is 1 action (the second run's start); the rest are the messages and timers that made the history long",
  };
}

/** The table of actions per question. */
export function actionsTable(rows: readonly ActionsRow[]): string {
  const amount = (value: number): string => (Number.isInteger(value) ? String(value) : value.toFixed(1));
  return markdownTable(
    [
      'workload',
      'questions',
      'actions per question',
      'floor',
      'of which',
      'not billed',
      'what the actions beyond the floor buy',
    ],
    rows.map((row) => [
      row.name,
      String(row.questions),
      amount(row.actions.total),
      String(row.floor),
      describeKinds(row.actions.byKind),
      describeKinds(row.actions.free),
      row.actions.total <= row.floor ? '—' : row.buys,
    ]),
    7,
  );
}
