/** The fleet part's figures as Markdown (`fleet-pending.ts`). */
import type { FleetFigures, MemoryFigure, StartCpu } from './fleet-pending';
import { formatBytes, formatNumber } from './measure';

function seconds(value: number): string {
  return `${formatNumber(value, 1)} s`;
}

function perSecond(count: number, elapsed: number): string {
  return `${formatNumber(count / elapsed, 0)}/s`;
}

function cpuSpent(cpu: StartCpu): string {
  return (
    `CPU meanwhile: agents ${seconds(cpu.agents)}, worker ${seconds(cpu.worker)}, server ${seconds(cpu.server)}, ` +
    `PostgreSQL ${seconds(cpu.postgres)}`
  );
}

function share(value: number): string {
  return Number.isNaN(value) ? 'n/a' : `${formatNumber(value * 100, 1)}%`;
}

function memory(figure: MemoryFigure, questions: number): string {
  if (figure.before === undefined || figure.holding === undefined) return 'n/a';
  const perQuestion = (figure.holding - figure.before) / questions;
  return `${formatBytes(figure.before)} → ${formatBytes(figure.holding)} (${formatBytes(perQuestion, true)}/q)`;
}

function calls(byMethod: Record<string, number>): string {
  const entries = Object.entries(byMethod).sort((a, b) => b[1] - a[1]);
  return entries.length === 0
    ? 'none'
    : entries.map(([method, count]) => `${method} ${formatNumber(count)}`).join(', ');
}

function counts(record: Record<string, number>): string {
  const entries = Object.entries(record);
  return entries.length === 0 ? 'none' : entries.map(([key, count]) => `${count}× ${key}`).join('; ');
}

/** The section of the results file. */
export function fleetMarkdown(figures: FleetFigures & { floorFailed?: string }): string {
  const { settings, ours, floor } = figures;
  const n = settings.questions;
  const { window, memory: held } = ours;
  const floorLine =
    floor === undefined
      ? `The floor did not run: ${figures.floorFailed ?? 'unknown'}.`
      : `The floor: ${formatNumber(floor.started)} bare signal workflows started by the same fleet in ` +
        `${seconds(floor.startSeconds)} (${perSecond(floor.started, floor.startSeconds)}; agents ` +
        `${floor.agentStartSeconds.map(seconds).join(', ')}; start failures: ${counts(floor.startFailures)}; ${cpuSpent(floor.startCpu)}). ` +
        `Ours took **${formatNumber(ours.startSeconds / floor.startSeconds, 2)}×** the floor's time.`;
  const cli =
    'failed' in ours.cli
      ? `failed: ${ours.cli.failed}`
      : `${formatNumber(ours.cli.ms, 0)} ms (${formatNumber(ours.cli.minMs, 0)}–${formatNumber(ours.cli.maxMs, 0)} ms, ` +
        `median and range of ${ours.cli.runs} cold starts; ${ours.cli.lines} lines)`;
  return [
    `## A fleet's pending questions (${formatNumber(n)} from ${settings.agents} agent processes, ${figures.server})`,
    '',
    `- **Start**: ${formatNumber(n)} questions started by ${settings.agents} agent processes (64 starts in flight ` +
      `each) in ${seconds(ours.startSeconds)} (${perSecond(n, ours.startSeconds)}; each agent: ` +
      `${ours.agentStartSeconds.map(seconds).join(', ')}; start failures: ${counts(ours.startFailures)}; ${cpuSpent(ours.startCpu)}); the ` +
      `worker ran the last first tasks and went quiet ${seconds(ours.settleSeconds)} later.`,
    `- ${floorLine}`,
    `- **Calls while waiting** (${seconds(window.seconds)} with nothing happening): agents ` +
      `${formatNumber(window.callsPerMinutePerQuestion.agents, 4)} calls a minute per question ` +
      `(${calls(window.agentCalls.byMethod)}), worker ${formatNumber(window.callsPerMinutePerQuestion.worker, 4)} ` +
      `(${calls(window.workerCalls)}). CPU over the window, share of one core: agents ${share(window.cpu.agents)}, ` +
      `worker ${share(window.cpu.worker)}, server ${share(window.cpu.server)}, PostgreSQL ${share(window.cpu.postgres)}.`,
    `- **Memory**, before asking → holding (growth per question): agents in all ${memory(held.agentsTotal, n)}, ` +
      `the largest agent ${memory(held.agentMax, n / settings.agents)}; worker ${memory(held.worker, n)}; ` +
      `Temporal server ${memory(held.server, n)}; PostgreSQL (${held.postgresProcesses} processes) RSS ` +
      `${memory(held.postgresRss, n)}, PSS ${memory(held.postgresPss, n)}; its database on disk ` +
      `${memory(held.database, n)}.`,
    `- **Inbox**, \`GET /api/questions?status=pending&pageSize=50\` (a page and the counts): ` +
      `${formatNumber(ours.inbox.timing.firstMs, 0)} ms cold, ${formatNumber(ours.inbox.timing.warmMs, 0)} ms warm; ` +
      `${ours.inbox.pageSize} questions, counted ${formatNumber(ours.inbox.pending)} pending. ` +
      `\`ask-user list\` from dist/: ${cli}.`,
    `- **Answer them all** (the \`submitAnswer\` update, ${settings.answerConcurrency} at a time) until every ` +
      `agent received every answer: ${seconds(ours.answer.seconds)} (${perSecond(n, ours.answer.seconds)}); ` +
      `sent again: ${counts(ours.answer.retried)}; failed: ${counts(ours.answer.failures)}.`,
    `- **Received**: ${formatNumber(ours.received.correct)}/${formatNumber(n)} exactly their own answer, ` +
      `${ours.received.wrong} a wrong one${ours.received.wrongSamples.length > 0 ? ` (${ours.received.wrongSamples.join('; ')})` : ''}, ` +
      `failed: ${counts(ours.received.failures)}. The agents' calls by final status: ${counts(ours.statuses)}.`,
  ].join('\n');
}
