/**
 * Renders the benchmark's figures as markdown (printed, and saved as `bench/results/latest.md`) and saves them
 * with the machine, the versions and the raw numbers as JSON (`bench/results/latest.json`), each also under a
 * dated name.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { findTemporalCli } from '../src/dev-server';
import type { ComparisonResult, ComparisonRow, RatioSummary } from './comparison';
import { formatBytes, formatNumber } from './measure';
import type { WaitingCheckpoint, WaitingFigures } from './waiting';

const PROJECT_ROOT = path.resolve(__dirname, '..');
export const RESULTS_DIRECTORY = path.join(__dirname, 'results');

/** A markdown table; numbers are right-aligned from column `textColumns` on. */
export function markdownTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  textColumns = 1,
): string {
  const align = header.map((_title, column) => (column < textColumns ? '---' : '---:'));
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((cell) => cell.replace(/\|/g, '\\|')).join(' | ')} |`;
  return [line(header), `|${align.map((cell) => ` ${cell} `).join('|')}|`, ...rows.map(line)].join('\n');
}

/** Milliseconds: one decimal below 100 ms, whole above. */
export function ms(value: number | undefined): string {
  if (value === undefined || Number.isNaN(value)) return 'n/a';
  return `${formatNumber(value, value < 100 ? 1 : 0)} ms`;
}

/** A ratio with two significant digits at least: `1.21`, `0.0031`, `972`. */
function ratioNumber(value: number): string {
  if (value >= 100) return formatNumber(value);
  if (value >= 0.1) return formatNumber(value, 2);
  return value.toPrecision(2);
}

/** A ratio's median with its range over the rounds: `1.21× (1.10–1.30)`. */
export function ratio(summary: RatioSummary | undefined): string {
  if (summary === undefined || Number.isNaN(summary.median)) return '—';
  return `${ratioNumber(summary.median)}× (${ratioNumber(summary.min)}–${ratioNumber(summary.max)})`;
}

function rate(value: number | undefined): string {
  if (value === undefined || Number.isNaN(value)) return 'n/a';
  return formatNumber(value, value < 10 ? 1 : 0);
}

function callsTotal(calls: Record<string, number> | undefined): number | undefined {
  if (calls === undefined) return undefined;
  return Object.values(calls).reduce((sum, count) => sum + count, 0);
}

function failureCount(row: ComparisonRow): number {
  return Object.values(row.failures).reduce((sum, count) => sum + count, 0);
}

function historyCell(row: ComparisonRow): string {
  if (row.history === undefined) return '—';
  const range = row.historyRange;
  const events =
    range === undefined || range.events[0] === range.events[1]
      ? String(row.history.events)
      : `${row.history.events} (${range.events[0]}–${range.events[1]})`;
  return `${events} ev, ${formatBytes(row.history.bytes)}`;
}

/** The main table: latency, throughput, history and calls, with ratios to the floor. */
export function comparisonTable(result: ComparisonResult): string {
  const concurrencies = result.settings.throughput.map((level) => level.concurrency);
  const header = [
    'workload',
    'c=1 p50',
    'p95',
    'p99',
    'p50 ×floor',
    'p99 ×floor',
    ...concurrencies.flatMap((concurrency) => [`c=${concurrency} q/s`, `×floor`]),
    'history',
    'gRPC calls/q',
    'failed',
  ];
  const rows = result.rows.map((row) => {
    const isFloor = row.group === 'floor';
    const agent = callsTotal(row.agentCallsPerQuestion);
    const answerer = callsTotal(row.answererCallsPerQuestion);
    return [
      row.name,
      ms(row.latency.p50),
      ms(row.latency.p95),
      ms(row.latency.p99),
      isFloor ? 'floor' : ratio(row.latencyRatio?.p50),
      isFloor ? 'floor' : ratio(row.latencyRatio?.p99),
      ...concurrencies.flatMap((concurrency) => [
        rate(row.throughput[concurrency]),
        isFloor ? 'floor' : ratio(row.throughputRatio?.[concurrency]),
      ]),
      historyCell(row),
      agent === undefined || answerer === undefined
        ? '—'
        : `${formatNumber(agent + answerer, 1)} (${formatNumber(agent, 1)} + ${formatNumber(answerer, 1)})`,
      `${failureCount(row)}/${row.questions}`,
    ];
  });
  return markdownTable(header, rows);
}

/** gRPC calls per question by method, asking side and answering side. */
export function callsTable(result: ComparisonResult): string {
  const rows: string[][] = [];
  for (const row of result.rows) {
    for (const [side, calls] of [
      ['agent', row.agentCallsPerQuestion],
      ['answerer', row.answererCallsPerQuestion],
    ] as const) {
      if (calls === undefined) continue;
      const methods = Object.entries(calls)
        .sort(([, a], [, b]) => b - a)
        .map(([method, count]) => `${method} ${formatNumber(count, 2)}`)
        .join(', ');
      rows.push([row.name, side, methods === '' ? 'none' : methods]);
    }
  }
  return markdownTable(['workload', 'side', 'calls per question by method'], rows, 3);
}

/** CPU per question by process, and resident memory at the end. */
export function cpuTable(result: ComparisonResult): string {
  const rows = result.rows.map((row) => [
    row.name,
    ms(row.cpuPerQuestion.bench),
    row.group === 'floor' || row.group === 'control' || row.group === 'ours'
      ? ms(row.cpuPerQuestion.worker)
      : '—',
    row.memory.server === undefined ? '—' : ms(row.cpuPerQuestion.server),
    row.memory.worker === undefined ? '—' : formatBytes(row.memory.worker),
    row.memory.server === undefined ? '—' : formatBytes(row.memory.server),
  ]);
  return markdownTable(
    ['workload', 'bench process CPU/q', 'worker CPU/q', 'server CPU/q', 'worker RSS', 'server RSS'],
    rows,
  );
}

/** Lines describing the rows and any failures. */
export function comparisonNotes(result: ComparisonResult): string {
  const lines = result.rows.map((row) => `- **${row.name}**: ${row.description}.`);
  for (const row of result.rows) {
    for (const [reason, count] of Object.entries(row.failures)) {
      lines.push(`- ${row.name}: ${count} failed: ${reason}`);
    }
  }
  return lines.join('\n');
}

/** Version of an installed package, or `n/a`. */
export function packageVersion(name: string): string {
  try {
    const manifest = JSON.parse(
      fs.readFileSync(path.join(PROJECT_ROOT, 'node_modules', name, 'package.json'), 'utf8'),
    ) as { version?: string };
    return manifest.version ?? 'n/a';
  } catch {
    return 'n/a';
  }
}

function commandOutput(file: string | undefined, args: readonly string[]): string {
  if (file === undefined) return 'n/a';
  try {
    return execFileSync(file, [...args], { encoding: 'utf8', timeout: 10_000, cwd: PROJECT_ROOT }).trim();
  } catch {
    return 'n/a';
  }
}

/** Versions of everything measured. */
export function versions(): Record<string, string> {
  return {
    node: process.version,
    temporalCli: commandOutput(findTemporalCli(), ['--version']),
    '@temporalio/client': packageVersion('@temporalio/client'),
    '@temporalio/worker': packageVersion('@temporalio/worker'),
    '@langchain/langgraph': packageVersion('@langchain/langgraph'),
    '@langchain/langgraph-checkpoint-sqlite': packageVersion('@langchain/langgraph-checkpoint-sqlite'),
    'better-sqlite3': packageVersion('better-sqlite3'),
    '@restatedev/restate-server': packageVersion('@restatedev/restate-server'),
    '@restatedev/restate-sdk': packageVersion('@restatedev/restate-sdk'),
    '@restatedev/restate-sdk-clients': packageVersion('@restatedev/restate-sdk-clients'),
  };
}

/** The machine the figures come from. */
export function machine(): Record<string, unknown> {
  return {
    cpu: os.cpus()[0]?.model.trim() ?? 'unknown',
    nproc: os.availableParallelism(),
    memory: os.totalmem(),
    platform: `${os.platform()} ${os.release()}`,
    loadAverage: os.loadavg(),
  };
}

/** The commit the figures measure (with `+changes` when the tree has uncommitted changes). */
export function commit(): string {
  const head = commandOutput('git', ['rev-parse', 'HEAD']);
  const dirty = commandOutput('git', ['status', '--porcelain', '--untracked-files=no', '--', 'src']);
  return dirty === '' || dirty === 'n/a' ? head : `${head}+uncommitted changes in src/`;
}

/**
 * Writes `<name>.md` and `<name>.json` under bench/results/, and with `dated`, copies named
 * `<name>-<timestamp>.*` that later runs leave alone.
 */
export function saveResults(name: string, markdown: string, json: unknown, dated: boolean): string[] {
  fs.mkdirSync(RESULTS_DIRECTORY, { recursive: true });
  const stamp = new Date()
    .toISOString()
    .replace(/[:.]/g, '-')
    .replace(/-\d{3}Z$/, 'Z');
  const text = `${JSON.stringify(json, null, 2)}\n`;
  const files: [string, string][] = [
    [`${name}.md`, markdown],
    [`${name}.json`, text],
  ];
  if (dated) files.push([`${name}-${stamp}.md`, markdown], [`${name}-${stamp}.json`, text]);
  for (const [file, content] of files) fs.writeFileSync(path.join(RESULTS_DIRECTORY, file), content);
  return files.map(([file]) => path.join('bench', 'results', file));
}

function share(value: number): string {
  return Number.isNaN(value) ? 'n/a' : `${formatNumber(value * 100, 1)}%`;
}

function perQuestionBytes(before: number | undefined, holding: number | undefined, count: number): string {
  if (before === undefined || holding === undefined) return 'n/a';
  return `${formatBytes(holding)} (${formatBytes((holding - before) / count, true)}/q)`;
}

function phaseLabel(kind: WaitingFigures['kind']): string {
  return kind === 'ours' ? 'ours (tool + TemporalUserInteraction)' : 'floor (raw handle.result())';
}

/**
 * Memory while holding, and its growth per question: from before asking for a phase's first count, from the
 * previous count after that (a fresh process's start-up garbage blurs the first baseline).
 */
function growth(
  checkpoint: WaitingCheckpoint,
  previous: WaitingCheckpoint | undefined,
  read: (memory: WaitingCheckpoint['memory']) => { before: number | undefined; holding: number | undefined },
): string {
  const now = read(checkpoint.memory);
  if (previous === undefined) return perQuestionBytes(now.before, now.holding, checkpoint.pending);
  const then = read(previous.memory);
  if (now.holding === undefined || then.holding === undefined) return 'n/a';
  const perQuestion = (now.holding - then.holding) / (checkpoint.pending - previous.pending);
  return `${formatBytes(now.holding)} (${formatBytes(perQuestion, true)}/q from ${formatNumber(previous.pending)})`;
}

/** The cost of waiting: calls, CPU and memory with the questions pending, one row per count. */
export function waitingTable(figures: readonly WaitingFigures[]): string {
  const checkpoints = figures.flatMap((phase) => phase.checkpoints);
  const previousOf = (checkpoint: WaitingCheckpoint): WaitingCheckpoint | undefined => {
    const phase = figures.find((candidate) => candidate.checkpoints.includes(checkpoint));
    const index = phase?.checkpoints.indexOf(checkpoint) ?? 0;
    return index > 0 ? phase?.checkpoints[index - 1] : undefined;
  };
  const rows = checkpoints.map((checkpoint) => {
    const floor = checkpoints.find((other) => other.kind === 'floor' && other.pending === checkpoint.pending);
    const versusFloor =
      checkpoint.kind === 'ours' && floor !== undefined && floor.window.callsPerMinutePerQuestion > 0
        ? ` (${ratioNumber(checkpoint.window.callsPerMinutePerQuestion / floor.window.callsPerMinutePerQuestion)}× floor)`
        : '';
    const methods = Object.entries(checkpoint.window.calls.byMethod)
      .sort(([, a], [, b]) => b - a)
      .map(([method, count]) => `${method} ${formatNumber(count)}`)
      .join(', ');
    return [
      phaseLabel(checkpoint.kind),
      formatNumber(checkpoint.pending),
      `${formatNumber(checkpoint.window.callsPerMinutePerQuestion, 2)}${versusFloor}`,
      methods === '' ? 'none' : methods,
      share(checkpoint.window.cpu.agent),
      share(checkpoint.window.cpu.worker),
      share(checkpoint.window.cpu.server),
      growth(checkpoint, previousOf(checkpoint), (memory) => ({
        before: memory.agentBefore,
        holding: memory.agentHolding,
      })),
      formatBytes(checkpoint.memory.workerHolding),
      growth(checkpoint, previousOf(checkpoint), (memory) => ({
        before: memory.serverBefore,
        holding: memory.serverHolding,
      })),
    ];
  });
  return markdownTable(
    [
      'agent holds',
      'pending',
      'calls/min/question',
      'calls in the window',
      'agent CPU',
      'worker CPU',
      'server CPU',
      'agent RSS',
      'worker RSS',
      'server RSS',
    ],
    rows,
  );
}

function total(record: Record<string, number>, key?: string): number {
  return Object.entries(record)
    .filter(([name]) => key === undefined || name === key)
    .reduce((sum, [, value]) => sum + value, 0);
}

function cliCell(cli: WaitingCheckpoint['cli']): string {
  if (cli === undefined) return '—';
  if ('skipped' in cli) return cli.skipped;
  if (cli.exitCode !== 0) return `exit ${cli.exitCode}: ${cli.note ?? ''}`;
  return `${ms(cli.ms)} (${ms(cli.minMs)}–${ms(cli.maxMs)})`;
}

/** Reads with the questions pending, one row per count. */
export function pendingReadsTable(figures: readonly WaitingFigures[]): string {
  const rows = figures
    .flatMap((phase) => phase.checkpoints)
    .map((checkpoint) => [
      phaseLabel(checkpoint.kind),
      formatNumber(checkpoint.pending),
      `${formatNumber(checkpoint.askSeconds, 1)} s (+${formatNumber(checkpoint.settleSeconds ?? 0, 0)} s)`,
      checkpoint.inbox === undefined
        ? '—'
        : `${ms(checkpoint.inbox.firstPage.firstMs)} / ${ms(checkpoint.inbox.firstPage.warmMs)}`,
      checkpoint.inbox === undefined
        ? '—'
        : `${ms(checkpoint.inbox.count.firstMs)} / ${ms(checkpoint.inbox.count.warmMs)} (${formatNumber(checkpoint.inbox.counted)})`,
      cliCell(checkpoint.cli),
    ]);
  return markdownTable(
    [
      'agent holds',
      'pending',
      'these started in (+ worker busy after)',
      'inbox first page (cold / warm)',
      'inbox count (cold / warm)',
      'ask-user list from dist/ (median of 5 starts, range)',
    ],
    rows,
  );
}

/** Answering them all, and whether every ask got exactly its own answer. */
export function answersTable(figures: readonly WaitingFigures[]): string {
  const rows = figures.map((phase) => {
    const falseUnavailable = Object.entries(phase.received.failures)
      .filter(([reason]) => reason.includes('ASK_UNAVAILABLE'))
      .reduce((sum, [, value]) => sum + value, 0);
    const startFailures = phase.checkpoints.reduce(
      (sum, checkpoint) => sum + total(checkpoint.startFailures),
      0,
    );
    return [
      phaseLabel(phase.kind),
      formatNumber(phase.answer.pending),
      `${formatNumber(phase.answer.seconds, 1)} s`,
      `${formatNumber(phase.received.correct)}/${formatNumber(phase.answer.pending)}`,
      String(phase.received.wrong),
      String(total(phase.received.failures) + startFailures + total(phase.answer.failures)),
      String(total(phase.answer.retried)),
      String(falseUnavailable),
      String(total(phase.statuses, 'RESOURCE_EXHAUSTED')),
      String(total(phase.statuses, 'DEADLINE_EXCEEDED')),
    ];
  });
  return markdownTable(
    [
      'agent holds',
      'answered',
      'answer all → all received',
      'own answer received',
      'wrong answer',
      'failed',
      'answers sent again',
      'ASK_UNAVAILABLE',
      'RESOURCE_EXHAUSTED',
      'DEADLINE_EXCEEDED',
    ],
    rows,
  );
}

/** Failures of the waiting part, one line each. */
export function waitingNotes(figures: readonly WaitingFigures[], failed: readonly string[]): string {
  const lines: string[] = [];
  for (const phase of figures) {
    const label = `${phase.kind} with ${formatNumber(phase.answer.pending)} pending`;
    const source = phase.checkpoints.find((checkpoint) => checkpoint.inbox !== undefined)?.inbox?.source;
    if (source !== undefined) lines.push(`- ${phase.kind}: inbox read through ${source}.`);
    for (const checkpoint of phase.checkpoints) {
      for (const [reason, value] of Object.entries(checkpoint.startFailures)) {
        lines.push(
          `- ${phase.kind} at ${formatNumber(checkpoint.pending)}: ${value} did not start: ${reason}`,
        );
      }
    }
    for (const [reason, value] of Object.entries(phase.received.failures))
      lines.push(`- ${label}: ${value} asks failed: ${reason}`);
    for (const [reason, value] of Object.entries(phase.answer.failures))
      lines.push(`- ${label}: ${value} answers failed: ${reason}`);
    for (const [reason, value] of Object.entries(phase.answer.retried))
      lines.push(`- ${label}: ${value} answers were sent again after: ${reason}`);
    for (const sample of phase.received.wrongSamples) lines.push(`- ${label}: wrong answer: ${sample}`);
  }
  for (const line of failed) lines.push(`- did not complete: ${line}`);
  return lines.join('\n');
}
