/** `ask-user answer <id>`: answers from flags, or at the prompt when run in a terminal with none. */
import { definedFields } from '../../common';
import { alreadyResolvedError } from '../../ops/answer-awaiting-worker';
import { QuestionClient, toWorkflowId } from '../../ops/question-client';
import type { AskUserQuestionAnswerItem } from '../../types';
import { answersFromFlags } from '../answer-flags';
import { batchFilter, runCliBatch } from '../batch-command';
import { awaitingWorkerText, formatRecord } from '../format';
import { promptForAnswers } from '../interactive-answer';
import { COMMAND_SPECS } from '../command-specs';
import { CliUsageError, actingAs, parse, requireId, stringList } from '../parse';
import { printJsonOr } from '../print';
import { withClient } from '../with-client';

/**
 * Records an answer; refused (exit 1) when the question is no longer pending or the answer breaks the rules.
 * With no worker running, the answer is recorded for one to validate, and the command says so (exit 0).
 */
export async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parse(COMMAND_SPECS.answer, argv);
  const selects = stringList(values, 'select');
  const customs = stringList(values, 'custom');
  const { name, groups } = actingAs(values);
  const filter = batchFilter('answer', values, positionals, 'question');
  if (filter !== undefined) {
    if (selects.length === 0 && customs.length === 0) {
      throw new CliUsageError('answer --all needs --select QID=LABEL or --custom QID=TEXT');
    }
    // The flags are read against the questions of --same-as, else of the first one selected; a question they
    // do not fit is refused as invalid, the others recorded.
    await withClient((client) =>
      runCliBatch(client, filter, 'Answered', values.json === true, async (questions, ids) => ({
        action: 'answer',
        answers: answersFromFlags(
          (await questions.get(filter.sameAs ?? ids[0]!)).questions,
          selects,
          customs,
        ),
        by: { name, groups },
      })),
    );
    return;
  }
  const id = requireId(positionals, 'answer');
  await withClient(async (client) => {
    const questions = new QuestionClient(client);
    const current = await questions.get(id);
    if (current.status !== 'pending') {
      throw alreadyResolvedError(current);
    }
    let answers: AskUserQuestionAnswerItem[];
    if (selects.length === 0 && customs.length === 0) {
      if (!process.stdin.isTTY) {
        throw new CliUsageError(
          'answer needs --select QID=LABEL or --custom QID=TEXT when not run in a terminal',
        );
      }
      process.stdout.write(`${formatRecord(toWorkflowId(id), current)}\n`);
      answers = await promptForAnswers(current, process.stdin, process.stdout);
    } else {
      answers = answersFromFlags(current.questions, selects, customs);
    }
    const record = await questions.answer(id, { answers, ...definedFields({ answeredBy: name, groups }) });
    const { awaitingWorker } = record;
    printJsonOr(values.json === true, record, () =>
      awaitingWorker === undefined
        ? `Answered ${toWorkflowId(id)}.`
        : awaitingWorkerText(toWorkflowId(id), awaitingWorker),
    );
  });
}
