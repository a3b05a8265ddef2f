/** `ask-user list`: the questions, newest first. */
import { QuestionClient, type QuestionListFilter } from '../../temporal/question-client';
import { formatSummaries } from '../format';
import { CliUsageError, parse, stringOption } from '../parse';
import { printJsonOr } from '../print';
import { withClient } from '../with-client';

const FILTERS: readonly string[] = ['pending', 'answered', 'all'] satisfies QuestionListFilter[];

/** Lists pending (default), answered or all questions. */
export async function run(argv: string[]): Promise<void> {
  const { values } = parse(argv, { status: { type: 'string' }, json: { type: 'boolean' } });
  const status = stringOption(values, 'status') ?? 'pending';
  if (!FILTERS.includes(status)) {
    throw new CliUsageError('--status must be pending, answered or all');
  }
  const summaries = await withClient((client) =>
    new QuestionClient(client).list(status as QuestionListFilter),
  );
  printJsonOr(values.json === true, summaries, () => formatSummaries(summaries));
}
