/**
 * Summarises V8 CPU profiles (`.cpuprofile`, as `node --cpu-prof` writes them): where the sampled time went,
 * by origin (project code, Temporal SDK, gRPC, other packages, Node internals, GC, idle) and by function.
 *
 *   npx tsx bench/profile-summary.ts bench/results/profiles/*.cpuprofile
 *   npx tsx bench/profile-summary.ts --sum --top 40 <dir>/bench-process/ours-update/*.cpuprofile  # one summary
 *
 * `npm run bench -- --cpu-prof` writes one profile per worker and waiting agent process there, and one per
 * workload and throughput phase of the bench process (under `bench-process/`).
 */
import fs from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

function originOf(node: ProfileNode): string {
  const { url, functionName } = node.callFrame;
  if (functionName === '(idle)') return 'idle';
  if (functionName === '(garbage collector)') return 'GC';
  if (functionName === '(program)') return 'V8 / native';
  if (url === '') return 'V8 / native';
  // The bundled workflow code: @temporalio/workflow's runtime and the workflows, in the sandbox.
  if (url.includes('workflow-bundle')) return 'workflow bundle';
  if (url.startsWith('evalmachine')) return 'sandbox glue';
  if (url.includes('/node_modules/@temporalio/')) return 'Temporal SDK';
  if (url.includes('/node_modules/@grpc/') || url.includes('/node_modules/protobufjs'))
    return 'gRPC / protobuf';
  if (url.includes('/node_modules/')) return 'other packages';
  if (url.startsWith('node:')) return 'Node internals';
  if (url.includes('/src/') || url.includes('/dist/') || url.includes('workflow-bundle'))
    return 'project code';
  if (url.includes('/bench/')) return 'benchmark code';
  return 'other';
}

/** Self time by origin and the top functions, in milliseconds. */
export function summarise(
  profile: CpuProfile,
  top = 12,
): { total: number; byOrigin: [string, number][]; byFunction: [string, number][] } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, index) => {
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000);
  });
  const byOrigin = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  for (const [id, ms] of self) {
    const node = byId.get(id);
    if (node === undefined) continue;
    total += ms;
    const origin = originOf(node);
    byOrigin.set(origin, (byOrigin.get(origin) ?? 0) + ms);
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url === '' ? '' : ` ${path.basename(url)}:${lineNumber + 1}`;
    const name = `${functionName === '' ? '(anonymous)' : functionName}${where} [${origin}]`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + ms);
  }
  const sorted = (map: Map<string, number>): [string, number][] => [...map].sort(([, a], [, b]) => b - a);
  return { total, byOrigin: sorted(byOrigin), byFunction: sorted(byFunction).slice(0, top) };
}

/** Adds summaries up: the phases of one workload, profiled one by one. */
function sum(summaries: readonly ReturnType<typeof summarise>[], top: number): ReturnType<typeof summarise> {
  const add = (pick: (summary: ReturnType<typeof summarise>) => [string, number][]): [string, number][] => {
    const totals = new Map<string, number>();
    for (const summary of summaries) {
      for (const [name, ms] of pick(summary)) totals.set(name, (totals.get(name) ?? 0) + ms);
    }
    return [...totals].sort(([, a], [, b]) => b - a);
  };
  return {
    total: summaries.reduce((total, summary) => total + summary.total, 0),
    byOrigin: add((summary) => summary.byOrigin),
    byFunction: add((summary) => summary.byFunction).slice(0, top),
  };
}

function main(): void {
  const args = process.argv.slice(2);
  const summed = args.includes('--sum');
  const topAt = args.indexOf('--top');
  const top = topAt === -1 ? 12 : Number(args[topAt + 1]);
  const options = new Set(topAt === -1 ? [] : [topAt, topAt + 1]);
  const files = args.filter((arg, index) => arg !== '--sum' && !options.has(index));
  if (files.length === 0 || !(top > 0)) {
    throw new Error('usage: profile-summary.ts [--sum] [--top N] <file.cpuprofile>...');
  }
  const read = (file: string): ReturnType<typeof summarise> =>
    summarise(JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile, summed ? Infinity : top);
  const summaries: [string, ReturnType<typeof summarise>][] = summed
    ? [[`${files.length} profiles`, sum(files.map(read), top)]]
    : files.map((file) => [file, read(file)]);
  for (const [file, { total, byOrigin, byFunction }] of summaries) {
    const busy = byOrigin.filter(([origin]) => origin !== 'idle').reduce((sum, [, ms]) => sum + ms, 0);
    process.stdout.write(`\n${file}: ${Math.round(total)} ms sampled, ${Math.round(busy)} ms busy\n`);
    for (const [origin, ms] of byOrigin) {
      process.stdout.write(`  ${origin.padEnd(18)} ${Math.round(ms).toString().padStart(8)} ms\n`);
    }
    process.stdout.write('  top functions (self time):\n');
    for (const [name, ms] of byFunction) {
      process.stdout.write(`    ${Math.round(ms).toString().padStart(7)} ms  ${name}\n`);
    }
  }
}

if (require.main === module) main();
