/**
 * The pure tool layer, no Temporal: what every call of `ask_user_question` costs in the agent's process before
 * and after the question is asked. `parseAskUserQuestionArgs` validates the model's arguments,
 * `toAskUserQuestions` translates them, `checkAnswer` checks the answer against the questions and
 * `serializeAnswer` renders the text the model reads.
 */
import { checkAnswer, serializeAnswer } from '../src/answer';
import { parseAskUserQuestionArgs, toAskUserQuestions } from '../src/tool';
import type { AskUserQuestion } from '../src/types';
import { benchCalls, type BenchCall } from './fixtures';
import { formatBytes, formatNumber, formatTable, median, ownMemory } from './measure';

/** How long to warm up and how long each timed run lasts. */
export interface MicroBenchOptions {
  warmupMs: number;
  runs: number;
  runMs: number;
}

export const DEFAULT_MICRO_BENCH_OPTIONS: MicroBenchOptions = { warmupMs: 400, runs: 7, runMs: 200 };

/** Figures of one measured operation. */
export interface MicroResult {
  /** Median over the runs. */
  opsPerSecond: number;
  microsPerOp: number;
  /** Slowest and fastest run, to show the spread. */
  slowestOpsPerSecond: number;
  fastestOpsPerSecond: number;
  totalOps: number;
  /** Heap still in use after a full collection at the end, compared with the same right after the warmup. */
  retainedHeapGrowth: number;
}

// Results are folded into this value so that no work can be optimised away as unused.
let sink = 0;

/**
 * Times `operation` (which returns a number derived from its result): a warmup that also sizes the runs, then
 * `runs` runs of equal iteration counts, timed with the high-resolution clock.
 */
export async function measureOperation(
  operation: () => number,
  options: MicroBenchOptions = DEFAULT_MICRO_BENCH_OPTIONS,
): Promise<MicroResult> {
  let warmupOps = 0;
  const warmupStart = performance.now();
  while (performance.now() - warmupStart < options.warmupMs) {
    sink += operation();
    warmupOps += 1;
  }
  const warmupMs = performance.now() - warmupStart;
  const opsPerRun = Math.max(1, Math.round((warmupOps * options.runMs) / warmupMs));
  // Measured from after the warmup: compiled code and caches filled on first use are not growth.
  const before = await ownMemory();

  const rates: number[] = [];
  for (let run = 0; run < options.runs; run += 1) {
    const start = process.hrtime.bigint();
    for (let index = 0; index < opsPerRun; index += 1) sink += operation();
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    rates.push(opsPerRun / seconds);
  }
  const after = await ownMemory();
  const opsPerSecond = median(rates);
  return {
    opsPerSecond,
    microsPerOp: 1e6 / opsPerSecond,
    slowestOpsPerSecond: Math.min(...rates),
    fastestOpsPerSecond: Math.max(...rates),
    totalOps: warmupOps + opsPerRun * options.runs,
    retainedHeapGrowth: after.heapUsed - before.heapUsed,
  };
}

/** Validation and translation of the model's arguments. */
function validateAndTranslate(call: BenchCall): AskUserQuestion[] {
  return toAskUserQuestions(parseAskUserQuestionArgs(call.args));
}

/** The answer rules and the serialiser, on questions already translated. */
function checkAndSerialize(questions: readonly AskUserQuestion[], call: BenchCall): string {
  const checked = checkAnswer(questions, call.answer);
  if (!checked.ok) throw new Error(`${call.name}: the bench answer is invalid: ${checked.reason}`);
  return serializeAnswer(checked.answer);
}

/** The stages measured for each call: the whole layer, then its two halves. */
function stagesOf(call: BenchCall): { stage: string; operation: () => number }[] {
  const questions = validateAndTranslate(call);
  const text = checkAndSerialize(questions, call);
  if (text !== call.resultText) throw new Error(`${call.name}: unexpected result text ${text}`);
  return [
    {
      stage: 'whole layer',
      operation: () => checkAndSerialize(validateAndTranslate(call), call).length,
    },
    { stage: 'validate + translate', operation: () => validateAndTranslate(call).length },
    { stage: 'check + serialize', operation: () => checkAndSerialize(questions, call).length },
  ];
}

/** Runs the tool-layer benchmark and prints its table. */
export async function runToolLayerBench(
  options: MicroBenchOptions = DEFAULT_MICRO_BENCH_OPTIONS,
): Promise<void> {
  process.stdout.write(
    `\n## Tool layer (no Temporal)\n\nparseAskUserQuestionArgs + toAskUserQuestions + checkAnswer + serializeAnswer; ` +
      `median of ${options.runs} runs of ~${options.runMs} ms after a ${options.warmupMs} ms warmup.\n\n`,
  );
  const rows: string[][] = [];
  for (const call of benchCalls) {
    const argsBytes = Buffer.byteLength(JSON.stringify(call.args));
    for (const { stage, operation } of stagesOf(call)) {
      const result = await measureOperation(operation, options);
      rows.push([
        stage === 'whole layer' ? `${call.name} [args ${formatBytes(argsBytes)}]` : '',
        stage,
        formatNumber(result.opsPerSecond),
        formatNumber(result.microsPerOp, result.microsPerOp < 10 ? 2 : 1),
        `${formatNumber(result.slowestOpsPerSecond)}–${formatNumber(result.fastestOpsPerSecond)}`,
        formatBytes(result.retainedHeapGrowth, true),
      ]);
    }
  }
  process.stdout.write(
    `${formatTable(['call', 'stage', 'ops/s', 'µs/op', 'runs (ops/s)', 'heap growth'], rows, 2)}\n`,
  );
  if (sink === -1) process.stdout.write('\n'); // keeps `sink` observable
}
