/**
 * The batch form of `answer`, `approve` and `deny`: `--all` with filters selects pending questions, and each is
 * sent through `QuestionClient` by `runBatch` (ops/batch-decisions.ts), recorded once or refused with the reason.
 * One line per item, then the counts; exit 1 when any was refused, so a script sees it.
 */
import type { Client } from '@temporalio/client';
import { definedFields } from '../common';
import {
  runBatch,
  selectPending,
  type BatchFilter,
  type BatchRequest,
  type BatchResult,
} from '../ops/batch-decisions';
import { QuestionClient } from '../ops/question-client';
import { CliUsageError, stringOption, type Options } from './parse';
import { printJsonOr } from './print';

const FILTERS = ['tool', 'agent', 'same-as'] as const;

/**
 * The batch's filter when `--all` is given (`kind` narrows it to approvals or questions), `undefined` for the
 * one-question form.
 *
 * @throws CliUsageError for `--all` with an id, or a filter without `--all`.
 */
export function batchFilter(
  command: string,
  values: Options,
  positionals: readonly string[],
  kind?: BatchFilter['kind'],
): BatchFilter | undefined {
  if (values.all !== true) {
    const stray = FILTERS.find((name) => values[name] !== undefined);
    if (stray !== undefined) throw new CliUsageError(`--${stray} selects questions for --all; add --all`);
    return undefined;
  }
  if (positionals.length > 0) {
    throw new CliUsageError(
      `${command} takes a question id or --all, not both (got ${positionals.join(' ')})`,
    );
  }
  return definedFields({
    kind,
    toolName: stringOption(values, 'tool'),
    agentId: stringOption(values, 'agent'),
    sameAs: stringOption(values, 'same-as'),
  });
}

/** What the person reads: one line per item, then the counts. */
export function batchText(verb: string, result: BatchResult): string {
  const lines = result.results.map((item) => {
    if (item.recorded) {
      const counted = item.approvals ?? item.rejections;
      if (counted !== undefined) {
        // Counted, not decided: the call waits for the decisions its policy still needs.
        const noun = item.approvals === undefined ? 'rejections' : 'approvals';
        return `${verb} ${item.workflowId} (recorded: ${counted.given} of ${counted.required} ${noun}; still pending).`;
      }
      return item.awaitingWorker === true
        ? `${verb} ${item.workflowId} (recorded; waits for a worker to validate it).`
        : `${verb} ${item.workflowId}.`;
    }
    return `Refused ${item.workflowId}: ${item.refusal}: ${item.message}`;
  });
  lines.push(`${result.recorded} recorded, ${result.refused} refused.`);
  return lines.join('\n');
}

/**
 * Selects the pending questions `filter` names and runs `request` on each. `requestOf` builds the request once
 * the selection is known (an answer is parsed against the questions of the first one).
 */
export async function runCliBatch(
  client: Client,
  filter: BatchFilter,
  verb: string,
  json: boolean,
  requestOf: (questions: QuestionClient, ids: string[]) => Promise<BatchRequest> | BatchRequest,
): Promise<void> {
  const questions = new QuestionClient(client);
  const ids = await selectPending(questions, filter);
  if (ids.length === 0) {
    printJsonOr(json, { results: [], recorded: 0, refused: 0 }, () => 'No pending question matches.');
    return;
  }
  const result = await runBatch(questions, ids, await requestOf(questions, ids));
  printJsonOr(json, result, () => batchText(verb, result));
  if (result.refused > 0) process.exitCode = 1;
}
