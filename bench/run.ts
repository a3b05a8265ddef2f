/**
 * `npm run bench`: prints what `ask_user_question` costs — the tool layer alone, durable questions end to end
 * on a real Temporal dev server, and the size of what the model sees. Figures only; nothing is asserted.
 *
 *   npm run bench                      # everything (under a minute on 2 cores)
 *   npm run bench -- tool schema       # only some parts: tool, e2e, schema
 *   BENCH_QUESTIONS=500 npm run bench -- e2e
 */
import { measureToolSchema } from '../scripts/print-schema';
import { benchQuestionCount, runEndToEndBench } from './end-to-end';
import { describeMachine, formatMs, formatNumber, formatTable, since } from './measure';
import { runToolLayerBench } from './tool-layer';

const PARTS = ['tool', 'e2e', 'schema'] as const;
type Part = (typeof PARTS)[number];

function selectedParts(argv: readonly string[]): Set<Part> {
  if (argv.length === 0) return new Set(PARTS);
  const unknown = argv.filter((arg) => !(PARTS as readonly string[]).includes(arg));
  if (unknown.length > 0) {
    throw new Error(`unknown bench part ${unknown.join(', ')}: choose from ${PARTS.join(', ')}`);
  }
  return new Set(argv as Part[]);
}

function printSchemaSize(): void {
  const size = measureToolSchema();
  process.stdout.write('\n## Tool schema (what the model sees on every request; cl100k_base tokens)\n\n');
  const row = (label: string, part: { characters: number; tokens: number }): string[] => [
    label,
    formatNumber(part.characters),
    formatNumber(part.tokens),
  ];
  const rows = [
    row('name', size.parts.name),
    row('description', size.parts.description),
    row('parameters (compact JSON Schema)', size.parts.parameters),
    row('total', size.total),
  ];
  process.stdout.write(`${formatTable(['part', 'chars', 'tokens'], rows)}\n`);
}

async function main(): Promise<void> {
  const parts = selectedParts(process.argv.slice(2));
  const count = benchQuestionCount();
  const startedAt = performance.now();
  process.stdout.write(`# durable-ask-user benchmarks\n\n${describeMachine()}\n`);
  if (parts.has('tool')) await runToolLayerBench();
  if (parts.has('e2e')) await runEndToEndBench(count);
  if (parts.has('schema')) printSchemaSize();
  process.stdout.write(`\nbenchmarks took ${formatMs(since(startedAt))}\n`);
}

/** The message of an error and of each of its causes: a `ServiceError`'s own message rarely says why. */
function reasonOf(error: unknown): string {
  const reasons: string[] = [];
  for (let current = error; current !== undefined && reasons.length < 5;) {
    if (!(current instanceof Error)) {
      reasons.push(typeof current === 'string' ? current : JSON.stringify(current));
      break;
    }
    reasons.push(current.message);
    current = current.cause;
  }
  return reasons.join(': ');
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${reasonOf(error)}\n`);
  process.exitCode = 1;
});
