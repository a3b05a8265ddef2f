/**
 * Property-based tests of the tool over the whole input space the contract allows:
 * - any valid request with any valid answer round-trips to exactly the text the contract describes;
 * - an answer broken in exactly one rule is refused with that rule;
 * - no input at all, from the model or from a provider, makes `execute` fail with anything but a
 *   `UserInteractionError`.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { MAX_ANSWER_BYTES, checkAnswer, jsonByteLength, type AnswerRule as Rule } from '../../src/answer';
import { InMemoryUserInteraction, UserInteractionError } from '../../src/interaction';
import {
  MAX_REQUEST_BYTES,
  createAskUserQuestionTool,
  parseAskUserQuestionArgs,
  toAskUserQuestions,
} from '../../src/tool';
import type { AskUserQuestionRequest, UserInteraction } from '../../src/types';
import { rejectWith, scriptedProvider } from '../helpers/interaction';

const NUM_RUNS = 300;

// ---- Arbitraries: model arguments valid per the contract's limits -------------------------------------------

interface OptionArgs {
  label: string;
  description?: string;
}
interface QuestionArgs {
  id: string;
  question: string;
  header?: string;
  options?: OptionArgs[];
  multi_select?: boolean;
}
interface Args {
  questions: QuestionArgs[];
}
interface Item {
  id: string;
  selected: string[];
  custom?: string;
}

/** Characters `String.prototype.trim` removes: what "blank" means in the contract. */
const whitespace = fc.constantFrom(' ', '\t', '\n', '\r', '\u00a0', '\u2003', '\u2028', '\ufeff');
const blank = fc.string({ unit: whitespace, maxLength: 5 });

/**
 * Text of 0..`max` UTF-16 code units: mostly short and made of any code points (including lone surrogates
 * and astral characters), sometimes exactly at the limit.
 */
function text(max: number, minLength = 0): fc.Arbitrary<string> {
  return fc
    .oneof(
      { weight: 9, arbitrary: fc.string({ unit: 'binary', minLength, maxLength: Math.min(max, 24) }) },
      { weight: 1, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: max, maxLength: max }) },
    )
    .filter((value) => value.length >= minLength && value.length <= max);
}

function nonBlank(max: number): fc.Arbitrary<string> {
  return text(max, 1).filter((value) => value.trim() !== '');
}

const optionArb: fc.Arbitrary<OptionArgs> = fc.record(
  { label: nonBlank(200), description: text(1000) },
  { requiredKeys: ['label'] },
);

function optionsArb(minLength: number): fc.Arbitrary<OptionArgs[]> {
  return fc.uniqueArray(optionArb, {
    selector: (option) => option.label,
    minLength,
    maxLength: 20,
    size: 'small',
  });
}

const questionArb: fc.Arbitrary<QuestionArgs> = fc.record(
  {
    id: text(100, 1),
    question: nonBlank(4000),
    header: text(80),
    options: optionsArb(0),
    multi_select: fc.boolean(),
  },
  { requiredKeys: ['id', 'question'] },
);

const argsArb: fc.Arbitrary<Args> = fc
  .uniqueArray(questionArb, {
    selector: (question) => question.id,
    minLength: 1,
    maxLength: 20,
    size: 'small',
  })
  .map((questions) => ({ questions }))
  // The request budget is a contract limit too; the field limits alone allow more.
  .filter((args) => jsonByteLength(args)! <= MAX_REQUEST_BYTES);

/** A valid answer to one question: skipped, custom, or labels the question offers (one unless multi-select). */
function answerItemArb(question: QuestionArgs): fc.Arbitrary<Item> {
  const { id } = question;
  const labels = (question.options ?? []).map((option) => option.label);
  const choices: fc.Arbitrary<Item>[] = [
    fc.constant({ id, selected: [] }),
    nonBlank(500).map((custom) => ({ id, selected: [], custom })),
  ];
  if (labels.length > 0) {
    choices.push(
      question.multi_select === true
        ? fc.shuffledSubarray(labels, { minLength: 1 }).map((selected) => ({ id, selected }))
        : fc.constantFrom(...labels).map((label) => ({ id, selected: [label] })),
    );
  }
  return fc.oneof(...choices);
}

function answersArb(args: Args): fc.Arbitrary<Item[]> {
  return fc.tuple(...args.questions.map(answerItemArb));
}

const requestAndAnswerArb = argsArb.chain((args) => fc.tuple(fc.constant(args), answersArb(args)));

// ---- What the contract says, written out independently of the serialiser ------------------------------------

/** `{"answers":[{"id":"<id>","selected":["<label>"],"custom":"<text>"}]}`, keys in that order, no spaces. */
function expectedText(items: readonly Item[]): string {
  const rendered = items.map((item) => {
    const selected = item.selected.map((label) => JSON.stringify(label)).join(',');
    const custom = item.custom === undefined ? '' : `,"custom":${JSON.stringify(item.custom)}`;
    return `{"id":${JSON.stringify(item.id)},"selected":[${selected}]${custom}}`;
  });
  return `{"answers":[${rendered.join(',')}]}`;
}

/** The request the provider must receive: `multi_select` becomes `multiSelect`, nothing else changes. */
function expectedQuestions(args: Args): AskUserQuestionRequest['questions'] {
  return args.questions.map((question) => ({
    id: question.id,
    question: question.question,
    ...(question.header === undefined ? {} : { header: question.header }),
    ...(question.options === undefined ? {} : { options: question.options.map((option) => ({ ...option })) }),
    ...(question.multi_select === undefined ? {} : { multiSelect: question.multi_select }),
  }));
}

async function outcome(promise: Promise<string>): Promise<{ text: string } | { error: unknown }> {
  try {
    return { text: await promise };
  } catch (error) {
    return { error };
  }
}

// ---- Answers broken in exactly one rule ---------------------------------------------------------------------

/** What the broken question must look like for the rule to be the only one broken. */
type TargetKind = 'any' | 'single-select with two options' | 'multi-select with an option' | 'with an option';

const targetKind: Record<Rule, TargetKind> = {
  shape: 'any',
  ids: 'any',
  'unknown-label': 'any',
  // Two labels on a single-select question; nothing else wrong with them.
  'single-select': 'single-select with two options',
  // A repeated label on a multi-select question (on a single-select one it would also break single-select).
  'duplicate-label': 'multi-select with an option',
  'blank-custom': 'any',
  'custom-with-labels': 'with an option',
  'custom-too-long': 'any',
  'too-large': 'any',
  undecodable: 'any',
};

/** Valid arguments in which question `target` is of the kind `rule` needs. */
function argsWithTarget(kind: TargetKind): fc.Arbitrary<{ args: Args; target: number }> {
  return argsArb.chain((args) =>
    fc
      .record({
        target: fc.nat({ max: args.questions.length - 1 }),
        two: optionsArb(2),
        one: optionsArb(1),
        singleFlag: fc.constantFrom<false | undefined>(false, undefined),
      })
      .map(({ target, two, one, singleFlag }) => {
        const questions = args.questions.map((question) => ({ ...question }));
        const question = questions[target]!;
        if (kind === 'single-select with two options') {
          question.options = two;
          if (singleFlag === undefined) delete question.multi_select;
          else question.multi_select = singleFlag;
        } else if (kind === 'multi-select with an option') {
          question.options = one;
          question.multi_select = true;
        } else if (kind === 'with an option' && (question.options ?? []).length === 0) {
          question.options = one;
        }
        return { args: { questions }, target };
      }),
  );
}

/** Breaks `items` (a valid answer to `args`) in `rule` alone, at question `target`. */
function breakAnswer(rule: Rule, args: Args, items: Item[], target: number): fc.Arbitrary<unknown> {
  const question = args.questions[target]!;
  const labels = (question.options ?? []).map((option) => option.label);
  const withItem = (item: unknown): unknown => ({
    answers: items.map((old, index) => (index === target ? item : old)),
  });
  const { id } = question;
  switch (rule) {
    case 'shape':
      return fc.oneof(
        fc.constantFrom(null, 'yes', 42, true, [], [items]),
        fc.constantFrom({}, { answers: null }, { answers: 'all' }, { answer: items }),
        fc.constantFrom(null, 'yes', 7, [id]).map(withItem),
        fc.constantFrom(7, null, [id]).map((badId) => withItem({ id: badId, selected: [] })),
        fc
          .constantFrom<unknown>('x', null, {}, [1], [null], [labels[0] ?? 'a', 2])
          .map((selected) => withItem({ id, selected })),
        fc.constantFrom(3, null, false, ['custom']).map((custom) => withItem({ id, selected: [], custom })),
      );
    case 'ids': {
      const variants: fc.Arbitrary<unknown>[] = [
        fc.constant({ answers: items.slice(0, -1) }),
        text(100, 1).map((extraId) => ({ answers: [...items, { id: extraId, selected: [] }] })),
        text(100, 1)
          .filter((otherId) => otherId !== id)
          .map((otherId) => withItem({ ...items[target], id: otherId })),
      ];
      if (items.length >= 2) {
        variants.push(
          fc
            .uniqueArray(fc.nat({ max: items.length - 1 }), { minLength: 2, maxLength: 2 })
            .map(([first, second]) => {
              const swapped = [...items];
              swapped[first!] = items[second!]!;
              swapped[second!] = items[first!]!;
              return { answers: swapped };
            }),
        );
      }
      return fc.oneof(...variants);
    }
    case 'unknown-label':
      return nonBlank(200)
        .filter((label) => !labels.includes(label))
        .map((label) => withItem({ id, selected: [label] }));
    case 'single-select':
      return fc.shuffledSubarray(labels, { minLength: 2 }).map((selected) => withItem({ id, selected }));
    case 'duplicate-label':
      return fc
        .record({ chosen: fc.shuffledSubarray(labels, { minLength: 1 }), repeat: fc.nat(), at: fc.nat() })
        .map(({ chosen, repeat, at }) => {
          const selected = [...chosen];
          selected.splice(at % (selected.length + 1), 0, chosen[repeat % chosen.length]!);
          return withItem({ id, selected });
        });
    case 'blank-custom':
      return blank.map((custom) => withItem({ id, selected: [], custom }));
    case 'custom-with-labels':
      return fc
        .record({
          selected:
            question.multi_select === true
              ? fc.shuffledSubarray(labels, { minLength: 1 })
              : fc.constantFrom(...labels).map((label) => [label]),
          custom: nonBlank(200),
        })
        .map(({ selected, custom }) => withItem({ id, selected, custom }));
    case 'custom-too-long':
      return fc
        .record({
          length: fc.integer({ min: 10_001, max: 10_100 }),
          unit: fc.constantFrom('x', 'é', '界', '😀'),
        })
        .map(({ length, unit }) => withItem({ id, selected: [], custom: unit.repeat(length) }));
    case 'too-large':
      // A valid answer whose answeredBy alone takes it over the budget.
      return fc
        .integer({ min: 0, max: 1000 })
        .map((extra) => ({ answers: items, answeredBy: 'a'.repeat(MAX_ANSWER_BYTES + extra) }));
    case 'undecodable':
      return text(200).map((reason) => ({ undecodable: reason }));
  }
}

const rules = Object.keys(targetKind) as Rule[];

const brokenCaseArb = fc
  .constantFrom(...rules)
  .chain((rule) =>
    argsWithTarget(targetKind[rule]).chain(({ args, target }) =>
      answersArb(args).chain((items) =>
        breakAnswer(rule, args, items, target).map((broken) => ({ rule, args, broken })),
      ),
    ),
  );

// ---- Properties ---------------------------------------------------------------------------------------------

describe('properties of ask_user_question', () => {
  test('every valid request and valid answer round-trips to exactly the contract text', async () => {
    await fc.assert(
      fc.asyncProperty(requestAndAnswerArb, async ([args, items]) => {
        const { provider, requests } = scriptedProvider(() => ({ answers: items }));
        const tool = createAskUserQuestionTool({ userInteraction: provider });
        const text = await tool.execute(args, { toolCallId: 'call_1' });
        assert.equal(text, expectedText(items));
        assert.deepEqual(requests[0]?.questions, expectedQuestions(args));
      }),
      { numRuns: NUM_RUNS },
    );
  });

  test('the in-memory provider takes every valid answer and the tool returns the same text', async () => {
    await fc.assert(
      fc.asyncProperty(requestAndAnswerArb, async ([args, items]) => {
        const provider = new InMemoryUserInteraction();
        provider.onQuestion((pending) => provider.answer(pending.id, { answers: items }));
        const tool = createAskUserQuestionTool({ userInteraction: provider });
        assert.equal(await tool.execute(args), expectedText(items));
      }),
      { numRuns: NUM_RUNS },
    );
  });

  test('an answer broken in exactly one rule is refused with BAD_ANSWER naming that rule', async () => {
    const prefix = 'ask_user_question received an invalid answer: ';
    await fc.assert(
      fc.asyncProperty(brokenCaseArb, async ({ rule, args, broken }) => {
        const tool = createAskUserQuestionTool({ userInteraction: scriptedProvider(() => broken).provider });
        const result = await outcome(tool.execute(args));
        assert.ok('error' in result, `accepted ${JSON.stringify(broken)}`);
        const { error } = result;
        assert.ok(UserInteractionError.isInstance(error));
        assert.equal(error.code, 'BAD_ANSWER');
        assert.equal(error.rule, rule);
        assert.ok(error.message.startsWith(prefix), error.message);
        assert.ok(error.message.length > prefix.length, 'a reason follows the prefix');
      }),
      { numRuns: NUM_RUNS },
    );
  });

  test('the in-memory provider refuses the same broken answers, and the question stays pending', async () => {
    await fc.assert(
      fc.asyncProperty(brokenCaseArb, async ({ rule, args, broken }) => {
        const provider = new InMemoryUserInteraction();
        const tool = createAskUserQuestionTool({ userInteraction: provider });
        const controller = new AbortController();
        const execution = outcome(tool.execute(args, { signal: controller.signal }));
        const pending = await provider.nextQuestion();
        let thrown: unknown;
        try {
          provider.answer(pending.id, broken as never);
        } catch (error) {
          thrown = error;
        }
        assert.ok(UserInteractionError.isInstance(thrown), `accepted ${JSON.stringify(broken)}`);
        assert.equal(thrown.code, 'BAD_ANSWER');
        assert.equal(thrown.rule, rule);
        assert.deepEqual(
          provider.pending().map((question) => question.id),
          [pending.id],
        );
        controller.abort();
        const result = await execution;
        assert.ok('error' in result && UserInteractionError.isInstance(result.error));
        assert.equal(result.error.code, 'ASK_ABORTED');
      }),
      { numRuns: 150 },
    );
  });
});

describe('execute fails only with UserInteractionError, whatever it is given', () => {
  const anything = fc.anything({
    maxDepth: 4,
    withBigInt: true,
    withBoxedValues: true,
    withDate: true,
    withMap: true,
    withNullPrototype: true,
    withObjectString: true,
    withSet: true,
    withSparseArray: true,
    withTypedArray: true,
  });

  /** Valid arguments with one field replaced by arbitrary JSON: the inputs closest to passing. */
  const nearlyValidArgs = fc
    .tuple(
      argsArb,
      fc.nat(),
      fc.constantFrom('id', 'question', 'header', 'options', 'multi_select', 'label'),
      fc.jsonValue(),
    )
    .map(([args, at, key, value]) => {
      const questions: Record<string, unknown>[] = args.questions.map((question) => ({ ...question }));
      const question = questions[at % questions.length]!;
      if (key === 'label') question.options = [{ label: value }];
      else question[key] = value;
      return { questions };
    });

  /** A provider that answers "skipped" to every question it is asked: valid whenever the arguments are. */
  const skippingProvider: UserInteraction = {
    ask: async (request) => ({
      answers: request.questions.map((question) => ({ id: question.id, selected: [] })),
    }),
  };

  test('arbitrary arguments: a text answer, or INVALID_ARGS / EMPTY_QUESTIONS', async () => {
    const tool = createAskUserQuestionTool({ userInteraction: skippingProvider });
    await fc.assert(
      fc.asyncProperty(fc.oneof(anything, fc.jsonValue(), nearlyValidArgs), async (args) => {
        const result = await outcome(tool.execute(args));
        if ('text' in result) {
          assert.match(result.text, /^\{"answers":\[/);
          return;
        }
        const { error } = result;
        assert.ok(UserInteractionError.isInstance(error), `rejected with ${String(error)}`);
        if (error.code === 'INVALID_ARGS') assert.match(error.message, /^invalid arguments: \S/);
        else assert.equal(error.code, 'EMPTY_QUESTIONS');
      }),
      { numRuns: 500 },
    );
  });

  /** A valid answer with one item or field replaced by arbitrary JSON. */
  const nearlyValidAnswer = requestAndAnswerArb.chain(([args, items]) =>
    fc
      .tuple(fc.nat(), fc.constantFrom('item', 'id', 'selected', 'custom', 'label'), fc.jsonValue())
      .map(([at, key, value]) => {
        const answers: unknown[] = items.map((item) => ({ ...item }));
        const index = at % answers.length;
        const item = answers[index] as Record<string, unknown>;
        if (key === 'item') answers[index] = value;
        else if (key === 'label') item.selected = [...(item.selected as unknown[]), value];
        else item[key] = value;
        return { args, answer: { answers } };
      }),
  );

  test('an arbitrary answer from the provider: a text answer, or BAD_ANSWER', async () => {
    const answerCases = fc.oneof(
      fc.record({ args: argsArb, answer: fc.oneof(anything, fc.jsonValue()) }),
      nearlyValidAnswer,
    );
    await fc.assert(
      fc.asyncProperty(answerCases, async ({ args, answer }) => {
        const tool = createAskUserQuestionTool({ userInteraction: scriptedProvider(() => answer).provider });
        const result = await outcome(tool.execute(args));
        if ('text' in result) {
          const parsed = JSON.parse(result.text) as { answers: Item[] };
          assert.deepEqual(
            parsed.answers.map((item) => item.id),
            args.questions.map((question) => question.id),
          );
          return;
        }
        const { error } = result;
        assert.ok(UserInteractionError.isInstance(error), `rejected with ${String(error)}`);
        assert.equal(error.code, 'BAD_ANSWER');
        assert.match(error.message, /^ask_user_question received an invalid answer: \S/);
      }),
      { numRuns: 500 },
    );
  });

  test('checkAnswer itself never throws, and every refusal names a known rule and a reason', () => {
    const known = new Set(Object.keys(targetKind));
    fc.assert(
      fc.property(
        argsArb,
        fc.oneof(anything, fc.jsonValue(), fc.record({ undecodable: fc.string() })),
        (args, raw) => {
          const questions = toAskUserQuestions(parseAskUserQuestionArgs(args));
          const checked = checkAnswer(questions, raw);
          if (checked.ok) return;
          assert.ok(known.has(checked.rule), checked.rule);
          assert.ok(checked.reason.length > 0);
        },
      ),
      { numRuns: 500 },
    );
  });

  test('a provider that rejects with anything at all: ASK_UNAVAILABLE, never the raw value', async () => {
    await fc.assert(
      fc.asyncProperty(argsArb, anything, async (args, reason) => {
        const tool = createAskUserQuestionTool({ userInteraction: { ask: () => rejectWith(reason) } });
        const result = await outcome(tool.execute(args));
        assert.ok('error' in result);
        assert.ok(UserInteractionError.isInstance(result.error), `rejected with ${String(result.error)}`);
        assert.equal(result.error.code, 'ASK_UNAVAILABLE');
        assert.match(result.error.message, /^ask_user_question could not reach the question service: /);
      }),
      { numRuns: 300 },
    );
  });
});
