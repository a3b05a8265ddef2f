/**
 * The `long-life` part of `npm run bench`: what one question costs in history when it lives long enough to
 * outgrow Temporal's per-run limits. One question takes refused `answer` signals (each one a history event) and
 * accepted deadline extensions (each one an update), then one answer; it continues as new as it nears the limits
 * (see docs/design.md, "Long lives: continue-as-new"). The figures: how long it took, how many runs the chain
 * had, and the history bytes across the chain, per question and per event. The server runs at Temporal's default
 * limits, and the worker is the package's, from `dist/`.
 *
 * The signals go a batch at a time, each batch after a query has seen the previous one: the server fails a
 * workflow task when more than 100 events arrive while it runs, and a sender that outruns the worker measures
 * its replays, not the question.
 */
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';

import { TemporalUserInteraction, answerSignal, type AskUserQuestionAnswer } from '../src';
import { QuestionClient } from '../src/ops';
import { getQuestionQuery } from '../src/question/definitions';
import { formatNumber } from './measure';

/** How much the question takes. */
export interface LongLifeSettings {
  signals: number;
  extensions: number;
  /** Signals in flight at once. */
  signalBatch: number;
  /** Extensions in flight at once (a run takes 10 updates in flight). */
  extensionBatch: number;
}

/** One run of the question's chain. */
export interface LongLifeRun {
  status: string;
  events: number;
  /** As the server counts it (`historySizeBytes`). */
  bytes: number;
}

/** What the part measured. */
export interface LongLifeFigures {
  settings: LongLifeSettings;
  seconds: { signals: number; extensions: number; total: number };
  runs: LongLifeRun[];
  events: number;
  /** Across the chain: the history one question costs. */
  bytes: number;
  bytesPerEvent: number;
  /** Whether the agent received exactly the answer given. */
  answerReceived: boolean;
}

export const FULL_LONG_LIFE: LongLifeSettings = {
  signals: 55_000,
  extensions: 2_100,
  signalBatch: 64,
  extensionBatch: 5,
};

export const QUICK_LONG_LIFE: LongLifeSettings = {
  signals: 5_500,
  extensions: 210,
  signalBatch: 64,
  extensionBatch: 5,
};

const AGENT = { id: 'bench-long-life' };
const QUESTION = {
  id: 'rollout',
  question: 'Roll the migration out to every region?',
  options: [{ label: 'Yes, all regions' }, { label: 'Only eu-west' }],
};
const ANSWER: AskUserQuestionAnswer = {
  answers: [{ id: 'rollout', selected: [], custom: 'Only eu-west, after the freeze' }],
};

/** The runs of `workflowId`'s chain, oldest first, walked back through each run's `continuedExecutionRunId`. */
async function chainOf(client: Client, workflowId: string): Promise<LongLifeRun[]> {
  const runs: LongLifeRun[] = [];
  let runId: string | undefined = (await client.workflow.getHandle(workflowId).describe()).runId;
  while (runId !== undefined && runId !== '') {
    const handle: WorkflowHandle = client.workflow.getHandle(workflowId, runId);
    const description = await handle.describe();
    runs.unshift({
      status: description.status.name,
      events: description.historyLength,
      bytes: description.historySize ?? 0,
    });
    const history = await handle.fetchHistory();
    runId =
      history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ?? undefined;
  }
  return runs;
}

/**
 * Asks one question on `taskQueue` of the server at `address`, floods it as `settings` says, answers it and
 * measures its chain.
 */
export async function runLongLife(
  target: { address: string; taskQueue: string },
  settings: LongLifeSettings,
  progress: (line: string) => void,
): Promise<LongLifeFigures> {
  const connection = await Connection.connect({ address: target.address });
  const client = new Client({ connection });
  const provider = new TemporalUserInteraction({
    client,
    taskQueue: target.taskQueue,
    policy: { expireAfter: '1h' },
  });
  try {
    const toolCallId = `long-life-${process.pid}`;
    const workflowId = `ask-user-question/${AGENT.id}/${toolCallId}`;
    const startedAt = performance.now();
    const asked = provider.ask({ questions: [QUESTION], agent: AGENT, toolCallId });
    const handle = client.workflow.getHandle(workflowId);
    for (;;) {
      try {
        await handle.query(getQuestionQuery);
        break;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    for (let sent = 0; sent < settings.signals; sent += settings.signalBatch) {
      const count = Math.min(settings.signalBatch, settings.signals - sent);
      await Promise.all(
        Array.from({ length: count }, (_, index) =>
          handle.signal(answerSignal, {
            answers: [{ id: 'rollout', selected: [`region-${sent + index}`] }],
            answeredBy: `sender-${sent + index}`,
          }),
        ),
      );
      await handle.query(getQuestionQuery);
      if ((sent / settings.signalBatch) % 200 === 0) progress(`long life: ${sent} signals sent`);
    }
    const signalsAt = performance.now();
    const questions = new QuestionClient(client);
    for (let sent = 0; sent < settings.extensions; sent += settings.extensionBatch) {
      const count = Math.min(settings.extensionBatch, settings.extensions - sent);
      await Promise.all(
        Array.from({ length: count }, (_, index) =>
          questions.extendDeadline(workflowId, '1m', `ops-${sent + index}`),
        ),
      );
    }
    const extensionsAt = performance.now();
    await questions.answer(workflowId, { ...ANSWER, answeredBy: 'alice' });
    const received = await asked;
    const answeredAt = performance.now();
    const runs = await chainOf(client, workflowId);
    const events = runs.reduce((sum, run) => sum + run.events, 0);
    const bytes = runs.reduce((sum, run) => sum + run.bytes, 0);
    progress(`long life: ${runs.length} runs, ${events} events`);
    return {
      settings,
      seconds: {
        signals: (signalsAt - startedAt) / 1000,
        extensions: (extensionsAt - signalsAt) / 1000,
        total: (answeredAt - startedAt) / 1000,
      },
      runs,
      events,
      bytes,
      bytesPerEvent: bytes / events,
      answerReceived: JSON.stringify(received) === JSON.stringify(ANSWER),
    };
  } finally {
    await provider.close();
    await connection.close();
  }
}

/** The part's section of the results. */
export function longLifeMarkdown(figures: LongLifeFigures): string {
  const { settings, runs } = figures;
  const byEvents = runs.reduce((max, run) => (run.events > max.events ? run : max), runs[0]!);
  const byBytes = runs.reduce((max, run) => (run.bytes > max.bytes ? run : max), runs[0]!);
  const megabytes = (bytes: number): string => `${formatNumber(bytes / 1_048_576, 1)} MiB`;
  const run = (one: LongLifeRun): string => `${formatNumber(one.events, 0)} events, ${megabytes(one.bytes)}`;
  return [
    `## One question, a long life (${formatNumber(settings.signals, 0)} refused signals, ` +
      `${formatNumber(settings.extensions, 0)} deadline extensions, one answer)`,
    '',
    "On the dev server at Temporal's default limits (a run is terminated at 51,200 events or 50 MB and takes " +
      '2,000 updates; continue-as-new is suggested at 4,096 events, 4 MB or 1,800 updates). Signals ' +
      `${settings.signalBatch} at a time, each batch after a query; extensions ${settings.extensionBatch} at a ` +
      "time through `QuestionClient.extendDeadline`; the worker is the package's, from dist/. Bytes are the " +
      "server's history size of each run, summed over the chain.",
    '',
    '| runs | events | history bytes per question | bytes per event | most events in a run | most bytes in a run | signals | extensions | total | answer received |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    `| ${runs.length} | ${formatNumber(figures.events, 0)} | ${megabytes(figures.bytes)} | ` +
      `${formatNumber(figures.bytesPerEvent, 0)} | ${run(byEvents)} | ${run(byBytes)} | ` +
      `${formatNumber(figures.seconds.signals, 1)} s | ${formatNumber(figures.seconds.extensions, 1)} s | ` +
      `${formatNumber(figures.seconds.total, 1)} s | ${figures.answerReceived ? 'exactly' : 'NO'} |`,
  ].join('\n');
}
