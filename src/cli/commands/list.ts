/**
 * `ask-user list`: one page of questions, listed the same way as the inbox's question index (pending first with
 * `--status all`, newest first, the same page tokens), so the terminal and the page show the same queue in the
 * same order, through `QuestionClient.listPage` (the same connection settings as every other command: TLS, API key,
 * proxy, data converter). `main.ts` loads this module, and with it `@temporalio/client`, only when `list` runs.
 */
import { definedFields } from '../../common';
import { QuestionClient } from '../../ops/question-client';
import type { QuestionIndexStatus } from '../../ops/question-listing';
import { formatSummaries } from '../format';
import { COMMAND_SPECS } from '../command-specs';
import { CliUsageError, parse, stringOption } from '../parse';
import { printJsonOr } from '../print';
import { withClient } from '../with-client';

const FILTERS: readonly string[] = ['pending', 'answered', 'all'] satisfies QuestionIndexStatus[];
const DEFAULT_LIMIT = 100;

/** Lists pending (default), answered or all questions; `--page-token` continues where a list stopped. */
export async function run(argv: string[]): Promise<void> {
  const { values } = parse(COMMAND_SPECS.list, argv);
  const status = stringOption(values, 'status') ?? 'pending';
  if (!FILTERS.includes(status)) {
    throw new CliUsageError('--status must be pending, answered or all');
  }
  const limitText = stringOption(values, 'limit');
  const limit = limitText === undefined ? DEFAULT_LIMIT : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    throw new CliUsageError('--limit must be a whole number from 1 to 1000');
  }
  const pageToken = stringOption(values, 'page-token');
  const page = await withClient((client) =>
    new QuestionClient(client).listPage({
      status: status as QuestionIndexStatus,
      pageSize: limit,
      ...definedFields({ pageToken }),
    }),
  );
  printJsonOr(values.json === true, page.questions, () => formatSummaries(page.questions));
  // On stderr, so that stdout stays the table or the JSON array a script reads.
  if (page.nextPageToken !== undefined) {
    process.stderr.write(`more: ask-user list --status ${status} --page-token ${page.nextPageToken}\n`);
  }
}
