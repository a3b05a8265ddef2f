/**
 * The `canUseTool` callback of the Claude Agent SDK (`@anthropic-ai/claude-agent-sdk` 0.3) over a
 * `UserInteraction`: Claude's clarifying questions (its built-in `AskUserQuestion` tool) become durable
 * questions, and every other tool call the SDK asks permission for becomes a durable approval. Both are keyed by
 * the SDK's `toolUseID`, so a callback that runs again for the same tool use (a restarted host resuming the
 * session) re-attaches to its question or approval, and gets an answer or decision taken meanwhile at once.
 *
 * Nothing here imports the SDK, not even its types: the SDK is not a dependency of this package (with its
 * platform binary it weighs some 400 MB). The `Claude*` types below are structural copies of what the SDK hands
 * the callback and takes back, written so that the callback can be assigned to the SDK's own `CanUseTool`;
 * test/e2e/claude-agent-sdk-types.test.ts does exactly that in a project that installs the SDK, so a change of
 * the SDK's types fails a test here rather than a user's build.
 *
 * Dependency-free apart from the tool: no SDK, no Temporal.
 */
import { NON_BLANK_PATTERN, schemaIssues } from '../answer/schema-issues';
import { definedFields, formatPath, isPlainObject, issueTexts } from '../common';
import { MAX_APPROVAL_DESCRIPTION_LENGTH } from '../interaction/approval-request-guard';
import { UserInteractionError, formatToolError } from '../interaction/user-interaction-error';
import type { AskUserQuestionArgs } from '../tool/ask-user-question-schema';
import { createAskUserQuestionTool } from '../tool/ask-user-question-tool';
import { approvalRequestOf, approvalRequester, rejectionText, stopsRun } from '../tool/require-approval';
import type {
  ApprovalDecision,
  AskUserAgent,
  AskUserQuestionAnswerItem,
  JsonSchemaObject,
  UserInteraction,
} from '../types';

/** The name of the SDK's built-in clarifying-question tool. */
const ASK_USER_QUESTION = 'AskUserQuestion';

/** The SDK's `AskUserQuestion` limits: 1–4 questions, a header of at most 12 characters, 2–4 options. */
const CLAUDE_LIMITS = { questions: 4, headerLength: 12, minOptions: 2, maxOptions: 4 } as const;

/**
 * What the SDK writes as the answer of a question nobody answered: its documentation of `AskUserQuestion`
 * says the model reads this text as "the question got no answer".
 */
const NO_PREFERENCE = '[No preference]';

/** How the SDK's documentation joins the labels of a multi-select answer. */
const LABEL_SEPARATOR = ', ';

/** At most this many problems of an `AskUserQuestion` input are listed, as for `ask_user_question`. */
const MAX_REPORTED_PROBLEMS = 5;

/**
 * What the SDK passes as the callback's third argument (its `canUseTool` options), structurally: the fields
 * this adapter reads, each typed as the SDK types it. The SDK passes more (`requestId`, `suggestions`, ...);
 * they are accepted and not used.
 */
export interface ClaudeCanUseToolContext {
  /** Aborted when the SDK gives up on the request (the query is interrupted or closed). */
  signal: AbortSignal;
  /** The tool use this permission request is about: unique per tool call, the durable key. */
  toolUseID: string;
  /** The sub-agent that makes the call, when it is not the main agent. */
  agentID?: string;
  /** The prompt sentence the SDK renders for the request ("Claude wants to read foo.txt"), when it has one. */
  title?: string;
  /** The SDK's subtitle for the request, when it has one. */
  description?: string;
  /** Why the SDK asks (a rule, a path outside the allowed directories, ...). */
  decisionReason?: string;
  /** The path that triggered the request, when one did. */
  blockedPath?: string;
}

/**
 * What the callback returns, structurally the SDK's `PermissionResult`: run the tool with `updatedInput`, or
 * do not run it, the model reading `message`. Never `null` (the SDK's "answered out of band").
 */
export type ClaudePermissionResult =
  | { behavior: 'allow'; updatedInput: Record<string, unknown> }
  | { behavior: 'deny'; message: string; interrupt?: boolean };

/** The callback, structurally the SDK's `CanUseTool`: pass it as `options.canUseTool` of `query()`. */
export type ClaudeCanUseTool = (
  toolName: string,
  input: Record<string, unknown>,
  context: ClaudeCanUseToolContext,
) => Promise<ClaudePermissionResult>;

/** The input of the SDK's `AskUserQuestion` tool (its `AskUserQuestionInput`), the fields this adapter reads. */
export interface ClaudeAskUserQuestionInput {
  /** 1–4 questions. */
  questions: readonly {
    /** The full question; the answers are keyed by this text. */
    question: string;
    /** A chip of at most 12 characters. */
    header: string;
    /** 2–4 choices; the SDK's "Other" (free text) is not among them. */
    options: readonly { label: string; description: string; preview?: string }[];
    multiSelect: boolean;
  }[];
  /** What the callback fills in: question text -> the chosen label(s) or the free text. */
  answers?: Record<string, string>;
}

/** Options of {@link claudeCanUseTool}. */
export interface ClaudeCanUseToolOptions {
  /** Where questions and approvals go: `TemporalUserInteraction` (durable), a `UserInteractionService`, ... */
  userInteraction: UserInteraction;
  /** Who asks: recorded with each question and approval, and part of its durable key with the `toolUseID`. */
  agent?: AskUserAgent;
  /**
   * Which tool calls wait for a human: all (the default), or those the predicate picks; the others are allowed
   * at once with their input. `AskUserQuestion` is never passed here: it always goes to a question.
   */
  needsApproval?: (
    toolName: string,
    input: Record<string, unknown>,
    context: ClaudeCanUseToolContext,
  ) => boolean | Promise<boolean>;
  /**
   * What the reviewer reads about the call. Default: the SDK's `title` for the request, else its
   * `description`, else the input's own `description` (which `Bash` has), cut to 4000 characters.
   */
  description?: (toolName: string, input: Record<string, unknown>) => string | undefined;
  /**
   * The tool's input schema (JSON Schema), which an edited input must satisfy. Default, and for a tool it
   * returns `undefined` for: `{ "type": "object" }`, since the SDK runs a tool only with an object input.
   */
  inputSchemaOf?: (toolName: string) => JsonSchemaObject | undefined;
  /**
   * What the model reads when the reviewer rejects the call. Default: `The user rejected this call of <tool>`,
   * with `: <reason>` when the reviewer gave one.
   */
  rejectedMessage?: (decision: Extract<ApprovalDecision, { type: 'reject' }>, toolName: string) => string;
}

/**
 * The SDK's `AskUserQuestion` input schema, as far as it differs from `ask_user_question`'s own rules (which
 * the tool checks next: non-blank questions and labels, unique labels, lengths): 1–4 questions, a non-blank
 * header of at most 12 characters, 2–4 options, `multiSelect` required.
 */
const ASK_INPUT_SCHEMA: JsonSchemaObject = {
  type: 'object',
  required: ['questions'],
  properties: {
    questions: {
      type: 'array',
      minItems: 1,
      maxItems: CLAUDE_LIMITS.questions,
      items: {
        type: 'object',
        required: ['question', 'header', 'options', 'multiSelect'],
        properties: {
          question: { type: 'string' },
          header: { type: 'string', pattern: NON_BLANK_PATTERN, maxLength: CLAUDE_LIMITS.headerLength },
          options: {
            type: 'array',
            minItems: CLAUDE_LIMITS.minOptions,
            maxItems: CLAUDE_LIMITS.maxOptions,
            items: {
              type: 'object',
              required: ['label', 'description'],
              properties: {
                label: { type: 'string' },
                description: { type: 'string' },
                preview: { type: 'string' },
              },
            },
          },
          multiSelect: { type: 'boolean' },
        },
      },
    },
  },
};

/**
 * The problems of an `AskUserQuestion` input that `ask_user_question` does not check itself: the SDK's schema,
 * and question texts that repeat, since the SDK keys the answers by them.
 */
function askInputProblems(input: Record<string, unknown>): string[] {
  const issues = schemaIssues(ASK_INPUT_SCHEMA, input);
  if (issues.length === 0) {
    const texts = (input as unknown as ClaudeAskUserQuestionInput).questions.map(({ question }) => question);
    for (const [index, text] of texts.entries()) {
      const earlier = texts.indexOf(text);
      if (earlier === index || text.trim() === '') continue;
      issues.push({
        path: ['questions', index, 'question'],
        message: `repeats ${formatPath(['questions', earlier, 'question'])}, and the answers are keyed by the question text`,
      });
    }
  }
  return issueTexts(issues, MAX_REPORTED_PROBLEMS);
}

/**
 * The `ask_user_question` arguments of a checked `AskUserQuestion` input. The ids are the positions (`q1` to
 * `q4`): the same input always gives the same questions, so a repeated call re-attaches to its question.
 */
function toAskArgs(input: ClaudeAskUserQuestionInput): AskUserQuestionArgs {
  return {
    questions: input.questions.map((question, index) => ({
      id: `q${index + 1}`,
      question: question.question,
      header: question.header,
      // The SDK's `preview` is left out: a question shows no rendered previews.
      options: question.options.map((option) => ({ label: option.label, description: option.description })),
      multi_select: question.multiSelect,
    })),
  };
}

/**
 * The SDK's answer to one question: the free text when the human wrote one, else the chosen labels joined
 * with `", "`, else (nothing chosen) `[No preference]`.
 */
function claudeAnswer(item: AskUserQuestionAnswerItem): string {
  if (item.custom !== undefined) return item.custom;
  if (item.selected.length > 0) return item.selected.join(LABEL_SEPARATOR);
  return NO_PREFERENCE;
}

/** A deny whose message is a failure as the model reads it (`Error: ...`), naming the tool Claude called. */
function denyFailure(error: UserInteractionError, toolName: string): ClaudePermissionResult {
  // The shared asking code names a question's tool `ask_user_question`; Claude called it `AskUserQuestion`.
  const message = formatToolError(error).replaceAll('ask_user_question', toolName);
  return { behavior: 'deny', message };
}

/** The reviewer's text by default: the SDK's prompt sentence, else its subtitle, else the input's description. */
function defaultDescription(
  input: Record<string, unknown>,
  context: ClaudeCanUseToolContext,
): string | undefined {
  const candidate = [context.title, context.description, input.description].find(
    (text): text is string => typeof text === 'string' && text.trim() !== '',
  );
  if (candidate === undefined) return undefined;
  const points = [...candidate];
  // Cut rather than refused: a long text from the model must not turn an approval into a failure.
  return points.length <= MAX_APPROVAL_DESCRIPTION_LENGTH
    ? candidate
    : `${points.slice(0, MAX_APPROVAL_DESCRIPTION_LENGTH - 1).join('')}…`;
}

/**
 * The Claude Agent SDK's `canUseTool` over `userInteraction`. Pass it as `options.canUseTool` of `query()`.
 *
 * - `AskUserQuestion` becomes a question with the same texts (ids `q1` to `q4`, `header`, `options`,
 *   `multiSelect`); the human's answer comes back as the SDK documents it: `allow` with the original input
 *   plus `answers`, keyed by question text, each the chosen label, the chosen labels joined with `", "`, or
 *   the human's own text. A question the human skipped (nothing chosen, no text) is answered `[No preference]`,
 *   the text the SDK's documentation of `AskUserQuestion` gives for a question without an answer. An input that
 *   breaks the SDK's schema, or the rules of `ask_user_question`, is denied naming the field.
 * - Any other tool becomes an approval keyed by the agent and the `toolUseID`: `approve` allows the original
 *   input, `edit` allows the edited input, `reject` denies with the reason (a reject with `stop` also sets
 *   `interrupt: true`, which ends the turn), and `respond` denies with the
 *   reviewer's text as the message (the SDK cannot put a result in place of a tool's, so the model reads the
 *   text as the reason the tool did not run). Calls `needsApproval` declines are allowed at once.
 * - The SDK's `signal` withdraws the question or approval (with `TemporalUserInteraction` its workflow ends
 *   Canceled). A failure to ask (aborted, unreachable, expired, declined) is denied with the failure's text,
 *   `Error: ...`, never allowed.
 *
 * @throws UserInteractionError `INVALID_OPTIONS` when `userInteraction` takes no approvals.
 *
 * @example
 * import { query } from '@anthropic-ai/claude-agent-sdk';
 * import { TemporalUserInteraction } from 'durable-ask-user';
 * import { claudeCanUseTool } from 'durable-ask-user/claude';
 *
 * const canUseTool = claudeCanUseTool({
 *   userInteraction: new TemporalUserInteraction(),
 *   agent: { id: 'build-bot' },
 *   needsApproval: (toolName) => toolName !== 'Read',
 * });
 * for await (const message of query({ prompt: 'Clean up the build folder', options: { canUseTool } })) {
 *   console.log(message.type);
 * }
 */
export function claudeCanUseTool(options: ClaudeCanUseToolOptions): ClaudeCanUseTool {
  const { userInteraction } = options;
  const requestApproval = approvalRequester(userInteraction, 'claudeCanUseTool');
  // Through the tool, so that a question gets every check any other ask gets: the byte budget, the abort
  // that settles the call even when a provider ignores it, and the answer rules on what comes back.
  const askTool = createAskUserQuestionTool({ userInteraction });

  const askQuestions = async (
    input: Record<string, unknown>,
    context: ClaudeCanUseToolContext,
  ): Promise<ClaudePermissionResult> => {
    const problems = askInputProblems(input);
    if (problems.length > 0)
      return denyFailure(UserInteractionError.invalidArgs(problems), ASK_USER_QUESTION);
    const checked = input as unknown as ClaudeAskUserQuestionInput;
    let text: string;
    try {
      text = await askTool.execute(toAskArgs(checked), {
        toolCallId: context.toolUseID,
        signal: context.signal,
        ...definedFields({ agent: options.agent }),
      });
    } catch (error) {
      if (UserInteractionError.isInstance(error)) return denyFailure(error, ASK_USER_QUESTION);
      throw error;
    }
    // The tool's text is its checked answer, one item per question in order.
    const { answers: items } = JSON.parse(text) as { answers: AskUserQuestionAnswerItem[] };
    const answers: Record<string, string> = {};
    for (const [index, question] of checked.questions.entries()) {
      answers[question.question] = claudeAnswer(items[index]!);
    }
    return { behavior: 'allow', updatedInput: { ...input, answers } };
  };

  // An arrow function, not a declaration: only it keeps `requestApproval` narrowed to defined.
  const approve = async (
    toolName: string,
    input: Record<string, unknown>,
    context: ClaudeCanUseToolContext,
  ): Promise<ClaudePermissionResult> => {
    const needed =
      options.needsApproval === undefined || (await options.needsApproval(toolName, input, context));
    if (!needed) return { behavior: 'allow', updatedInput: input };
    const description = options.description?.(toolName, input) ?? defaultDescription(input, context);
    let decision: ApprovalDecision;
    try {
      decision = await requestApproval(
        approvalRequestOf({
          toolName,
          toolCallId: context.toolUseID,
          input,
          description,
          inputSchema: options.inputSchemaOf?.(toolName) ?? { type: 'object' },
          agent: options.agent,
          signal: context.signal,
        }),
      );
    } catch (error) {
      if (UserInteractionError.isInstance(error)) return denyFailure(error, toolName);
      throw error;
    }
    switch (decision.type) {
      case 'approve':
        return { behavior: 'allow', updatedInput: input };
      case 'edit':
        // The input schema holds an edit to an object; a provider that does not check it is caught here.
        if (!isPlainObject(decision.input)) {
          return {
            behavior: 'deny',
            message: `Error: the edited input of ${toolName} is not an object, so the call did not run`,
          };
        }
        return { behavior: 'allow', updatedInput: decision.input };
      case 'reject': {
        const message = (options.rejectedMessage ?? rejectionText)(decision, toolName);
        // A reject with `stop` ends the whole turn: the SDK's own `interrupt`, not `RUN_STOPPED` (the SDK runs
        // the turn, and ends it on `interrupt` with the message as the denial).
        return stopsRun(decision)
          ? { behavior: 'deny', message, interrupt: true }
          : { behavior: 'deny', message };
      }
      case 'respond':
        return { behavior: 'deny', message: decision.text };
    }
  };

  return async (toolName, input, context) =>
    toolName === ASK_USER_QUESTION
      ? await askQuestions(input, context)
      : await approve(toolName, input, context);
}
