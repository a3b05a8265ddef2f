/**
 * Summarises V8 CPU profiles (`.cpuprofile`, as `node --cpu-prof` writes them): where the sampled time went,
 * by origin (project code, Temporal SDK, gRPC, other packages, Node internals, GC, idle) and by function.
 *
 *   npx tsx bench/profile-summary.ts bench/results/profiles/*.cpuprofile
 *
 * `npm run bench -- --cpu-prof` writes one profile per worker and waiting agent process there.
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

function main(): void {
  const files = process.argv.slice(2);
  if (files.length === 0) throw new Error('usage: profile-summary.ts <file.cpuprofile>...');
  for (const file of files) {
    const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
    const { total, byOrigin, byFunction } = summarise(profile);
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
