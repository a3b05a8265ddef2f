/** `ask-user ask`: asks from a shell through the tool, waits, and prints the result text. */
import { definedFields, errorText } from '../../common';
import { TemporalUserInteraction } from '../../provider/temporal-user-interaction';
import { createAskUserQuestionTool } from '../../tool/ask-user-question-tool';
import { COMMAND_SPECS } from '../command-specs';
import { CliUsageError, parse, stringList, stringOption, type Options } from '../parse';
import { print } from '../print';

/** The tool's arguments: `--args JSON` as the model sends them, or one question built from the flags. */
function argsFromFlags(values: Options): unknown {
  const json = stringOption(values, 'args');
  if (json !== undefined) {
    try {
      return JSON.parse(json) as unknown;
    } catch (error) {
      throw new CliUsageError(`--args is not valid JSON: ${errorText(error)}`, { cause: error });
    }
  }
  const question = stringOption(values, 'question');
  if (question === undefined) throw new CliUsageError('ask needs --question TEXT or --args JSON');
  const options = stringList(values, 'option').map((label) => ({ label }));
  const header = stringOption(values, 'header');
  return {
    questions: [
      definedFields({
        id: stringOption(values, 'id') ?? 'q1',
        question,
        header,
        options: options.length === 0 ? undefined : options,
        multi_select: values.multi === true ? true : undefined,
      }),
    ],
  };
}

/** Asks and waits; Ctrl-C withdraws the question (`ASK_ABORTED`). */
export async function run(argv: string[]): Promise<void> {
  const { values } = parse(COMMAND_SPECS.ask, argv);
  const args = argsFromFlags(values);
  const agentId = stringOption(values, 'agent') ?? 'cli';
  const sessionId = stringOption(values, 'session');
  const toolCallId = stringOption(values, 'tool-call-id');
  const userInteraction = new TemporalUserInteraction();
  const controller = new AbortController();
  const onSignal = (): void => controller.abort();
  process.once('SIGINT', onSignal);
  try {
    const tool = createAskUserQuestionTool({ userInteraction });
    const text = await tool.execute(args, {
      signal: controller.signal,
      agent: definedFields({ id: agentId, sessionId }),
      ...definedFields({ toolCallId }),
    });
    print(text);
  } finally {
    process.off('SIGINT', onSignal);
    await userInteraction.close();
  }
}
