/**
 * What `ask-user approve`, `deny` and `respond` share: parse the id, `--as` and `--group`, send one decision through
 * `QuestionClient.decide` (which checks it, an edited input against the tool's schema, before anything is
 * sent), and print the outcome.
 */
import { QuestionClient, toWorkflowId } from '../ops/question-client';
import type { DecideInput } from '../types';
import type { CommandSpec } from './command-specs';
import { parse, requireId, stringList, stringOption, type Options } from './parse';
import { printJsonOr } from './print';
import { withClient } from './with-client';

/** Runs one decision command: `decision` builds the decision from the parsed options. */
export async function runDecision(
  spec: CommandSpec,
  argv: readonly string[],
  decision: (values: Options) => DecideInput,
  done: (workflowId: string) => string,
): Promise<void> {
  const { values, positionals } = parse(spec, argv);
  const id = requireId(positionals, spec.name);
  const input = decision(values);
  const decidedBy = stringOption(values, 'as') ?? process.env.USER;
  const groups = stringList(values, 'group');
  const outcome = await withClient((client) =>
    new QuestionClient(client).decide(id, {
      ...input,
      ...(decidedBy === undefined ? {} : { decidedBy }),
      ...(groups.length === 0 ? {} : { groups }),
    }),
  );
  printJsonOr(values.json === true, outcome, () => done(toWorkflowId(id)));
}
