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
      row.history === undefined ? '—' : `${row.history.events} ev, ${formatBytes(row.history.bytes)}`,
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
    row.group === 'floor' || row.group === 'ours' ? ms(row.cpuPerQuestion.worker) : '—',
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
