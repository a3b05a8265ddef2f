/**
 * Measuring helpers shared by the benchmarks: a forced garbage collection, memory readings of this process and
 * of a child process, order statistics, and number formatting. Benchmarks print figures; they assert nothing
 * about time.
 */
import fs from 'node:fs';
import os from 'node:os';
import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * A full garbage collection, so that heap readings compare retained memory rather than garbage. `npm run bench`
 * runs under tsx without `--expose-gc`, so the flag is switched on here and `gc` read from a fresh context.
 */
export const collectGarbage: () => void = (() => {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed !== undefined) return exposed;
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
})();

/** Collects garbage twice with a pause in between, so finalisers and weak references settle first. */
export async function settleHeap(): Promise<void> {
  collectGarbage();
  await new Promise((resolve) => setTimeout(resolve, 100));
  collectGarbage();
}

/** This process's memory, in bytes. */
export interface ProcessMemory {
  rss: number;
  heapUsed: number;
  external: number;
}

/** This process's memory after a full collection. */
export async function ownMemory(): Promise<ProcessMemory> {
  await settleHeap();
  const { rss, heapUsed, external } = process.memoryUsage();
  return { rss, heapUsed, external };
}

/** Resident set size of another process, from `/proc` (Linux); `undefined` where that is not available. */
export function residentSetSize(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
    return match === null ? undefined : Number(match[1]) * 1024;
  } catch {
    return undefined;
  }
}

/** The value below which `fraction` of the sorted values fall (nearest rank). */
export function percentile(values: readonly number[], fraction: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return sorted[rank]!;
}

/** The median (the mean of the two middle values for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Milliseconds elapsed since `start` (a `performance.now()` reading). */
export function since(start: number): number {
  return performance.now() - start;
}

/** `1234567` → `1,234,567`; fractions keep `digits` places. */
export function formatNumber(value: number, digits = 0): string {
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** Bytes as B, KiB or MiB, signed when `signed` is set (for growth figures). */
export function formatBytes(bytes: number | undefined, signed = false): string {
  if (bytes === undefined || Number.isNaN(bytes)) return 'n/a';
  const sign = signed && bytes > 0 ? '+' : bytes < 0 ? '-' : '';
  const size = Math.abs(bytes);
  if (size < 1024) return `${sign}${formatNumber(size)} B`;
  if (size < 1024 * 1024) return `${sign}${formatNumber(size / 1024, 1)} KiB`;
  return `${sign}${formatNumber(size / (1024 * 1024), 1)} MiB`;
}

/** Milliseconds with one decimal. */
export function formatMs(milliseconds: number): string {
  return `${formatNumber(milliseconds, 1)} ms`;
}

/** Left-aligns the first `textColumns` columns and right-aligns the others (numbers). */
export function formatTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  textColumns = 1,
): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, column) =>
        column < textColumns ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!),
      )
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)]
    .map((text) => `  ${text}`)
    .join('\n');
}

/** One line describing the machine, for reading figures from different runs side by side. */
export function describeMachine(): string {
  const cpus = os.cpus();
  const model = cpus[0]?.model.trim() ?? 'unknown CPU';
  const memory = formatBytes(os.totalmem());
  const load = os
    .loadavg()
    .map((average) => average.toFixed(2))
    .join(' ');
  return (
    `${model}, ${cpus.length} cores, ${memory} RAM, ${os.platform()} ${os.release()}, Node ${process.version}; ` +
    `load average ${load}`
  );
}
