/**
 * The model-facing `ask_user_question` tool: what `execute` resolves to, every way it fails (code, exact
 * message and the `Error: ...` text the model reads), and what it hands to the user-interaction seam.
 */
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { describe, test } from 'node:test';
import {
  InMemoryUserInteraction,
  UserInteractionError,
  UserInteractionService,
  formatToolError,
} from '../../src/interaction';
import {
  ASK_USER_QUESTION_DESCRIPTION,
  MAX_REQUEST_BYTES,
  askUserQuestionArgsSchema,
  askUserQuestionJsonSchema,
  createAskUserQuestionTool,
  toAskUserQuestions,
} from '../../src/tool';
import type { AskUserQuestionRequest, UserInteraction } from '../../src/types';
import { expectFailure, rejectWith, scriptedProvider } from '../helpers/interaction';
import {
  checksQuestion,
  deployBatchArgs as deployArgs,
  environmentQuestion,
  noteQuestion,
} from '../helpers/questions';

/** A provider that never answers and never looks at the signal. */
function deafProvider(): { provider: UserInteraction; requests: AskUserQuestionRequest[] } {
  const requests: AskUserQuestionRequest[] = [];
  return {
    requests,
    provider: {
      ask: (request) => {
        requests.push(request);
        return new Promise(() => undefined);
      },
    },
  };
}

/** Awaits a promise that must reject with a `UserInteractionError`, and checks what the model would read. */
async function failure(
  promise: Promise<unknown>,
  code: string,
  message: string,
): Promise<UserInteractionError> {
  const error = await expectFailure(promise, code, message);
  assert.equal(formatToolError(error), `Error: ${message}`);
  return error;
}

function answering(answer: unknown): ReturnType<typeof createAskUserQuestionTool> {
  return createAskUserQuestionTool({ userInteraction: scriptedProvider(() => answer).provider });
}

describe('the tool as an agent loop registers it', () => {
  test('name, description, zod schema and generated JSON Schema', () => {
    const tool = answering({ answers: [] });
    assert.equal(tool.name, 'ask_user_question');
    assert.equal(tool.description, ASK_USER_QUESTION_DESCRIPTION);
    assert.equal(tool.inputSchema, askUserQuestionArgsSchema);
    assert.equal(tool.parameters, askUserQuestionJsonSchema);
    assert.equal('$schema' in tool.parameters, false);
  });
});

describe('execute resolves to the exact answer text', () => {
  const single = { questions: [deployArgs.questions[0]] };

  test('a single-select answer', async () => {
    const tool = answering({ answers: [{ id: 'env', selected: ['production'] }] });
    assert.equal(await tool.execute(single), '{"answers":[{"id":"env","selected":["production"]}]}');
  });

  test('a multi-select answer with several labels', async () => {
    const tool = answering({ answers: [{ id: 'checks', selected: ['lint', 'unit tests', 'e2e'] }] });
    assert.equal(
      await tool.execute({ questions: [deployArgs.questions[1]] }),
      '{"answers":[{"id":"checks","selected":["lint","unit tests","e2e"]}]}',
    );
  });

  test('a custom answer', async () => {
    const tool = answering({ answers: [{ id: 'env', selected: [], custom: 'canary only, 5%' }] });
    assert.equal(
      await tool.execute(single),
      '{"answers":[{"id":"env","selected":[],"custom":"canary only, 5%"}]}',
    );
  });

  test('a skipped question', async () => {
    const tool = answering({ answers: [{ id: 'env', selected: [] }] });
    assert.equal(await tool.execute(single), '{"answers":[{"id":"env","selected":[]}]}');
  });

  test('a label ending in " (Recommended)" passes through unchanged', async () => {
    const { provider, requests } = scriptedProvider(() => ({
      answers: [{ id: 'env', selected: ['staging (Recommended)'] }],
    }));
    const tool = createAskUserQuestionTool({ userInteraction: provider });
    assert.equal(
      await tool.execute(single),
      '{"answers":[{"id":"env","selected":["staging (Recommended)"]}]}',
    );
    assert.equal(requests[0]?.questions[0]?.options?.[0]?.label, 'staging (Recommended)');
  });

  test('a batch of three mixed questions', async () => {
    const tool = answering({
      answers: [
        { id: 'env', selected: ['staging (Recommended)'] },
        { id: 'checks', selected: ['lint', 'unit tests'] },
        { id: 'note', selected: [], custom: 'Ping #deploys when done' },
      ],
    });
    assert.equal(
      await tool.execute(deployArgs),
      '{"answers":[{"id":"env","selected":["staging (Recommended)"]},' +
        '{"id":"checks","selected":["lint","unit tests"]},' +
        '{"id":"note","selected":[],"custom":"Ping #deploys when done"}]}',
    );
  });

  test('keys a provider adds to its answer are not passed to the model', async () => {
    const tool = answering({
      answers: [{ id: 'env', selected: ['production'], confidence: 1 }],
      answeredBy: 'alice',
    });
    assert.equal(await tool.execute(single), '{"answers":[{"id":"env","selected":["production"]}]}');
  });

  test('through the service and the in-memory provider, answered by a human', async () => {
    const service = new UserInteractionService();
    const provider = new InMemoryUserInteraction();
    service.registerProvider(provider);
    provider.onQuestion((pending) =>
      provider.answer(pending.id, {
        answers: [
          { id: 'env', selected: [], custom: 'neither, wait for Monday' },
          { id: 'checks', selected: ['e2e'] },
          { id: 'note', selected: [] },
        ],
        answeredBy: 'alice',
      }),
    );
    const tool = createAskUserQuestionTool({ userInteraction: service });
    assert.equal(
      await tool.execute(deployArgs, { toolCallId: 'call_1' }),
      '{"answers":[{"id":"env","selected":[],"custom":"neither, wait for Monday"},' +
        '{"id":"checks","selected":["e2e"]},{"id":"note","selected":[]}]}',
    );
    assert.deepEqual(provider.pending(), []);
  });
});

describe('INVALID_ARGS names each field and why, and nothing is asked', () => {
  const question = (extra: Record<string, unknown> = {}) => ({ id: 'a', question: 'Proceed?', ...extra });
  const cases: { name: string; args: unknown; message: string }[] = [
    {
      name: 'duplicate ids',
      args: { questions: [question(), question({ question: 'Really?' })] },
      message: 'invalid arguments: questions[1].id: duplicate id "a"',
    },
    {
      name: 'duplicate labels in one question',
      args: { questions: [question({ options: [{ label: 'Yes' }, { label: 'No' }, { label: 'Yes' }] })] },
      message: 'invalid arguments: questions[0].options[2].label: duplicate label "Yes"',
    },
    {
      name: 'the same label in two questions is fine, a blank question is not',
      args: {
        questions: [
          question({ options: [{ label: 'Yes' }] }),
          { id: 'b', question: ' \n ', options: [{ label: 'Yes' }] },
        ],
      },
      message: 'invalid arguments: questions[1].question: must not be blank',
    },
    {
      name: 'a duplicate label beside another field of the question with the wrong type',
      args: {
        questions: [question({ multi_select: 'yes', options: [{ label: 'Yes' }, { label: 'Yes' }] })],
      },
      message:
        'invalid arguments: questions[0].options[1].label: duplicate label "Yes"; questions[0].multi_select: must be a boolean, received string',
    },
    {
      name: 'a header longer than 80 characters',
      args: { questions: [question({ header: 'h'.repeat(81) })] },
      message: 'invalid arguments: questions[0].header: must be at most 80 characters',
    },
    {
      name: 'more than 20 questions',
      args: { questions: Array.from({ length: 21 }, (_, index) => question({ id: `q${index}` })) },
      message: 'invalid arguments: questions: must have at most 20 items',
    },
    {
      name: 'an id that is a number',
      args: { questions: [question({ id: 7 })] },
      message: 'invalid arguments: questions[0].id: must be a string, received number',
    },
    {
      name: 'a missing question',
      args: { questions: [{ id: 'a' }] },
      message: 'invalid arguments: questions[0].question: is required',
    },
    {
      name: 'a missing questions array',
      args: {},
      message: 'invalid arguments: questions: is required',
    },
    {
      name: 'questions that is not an array',
      args: { questions: 'Proceed?' },
      message: 'invalid arguments: questions: must be an array, received string',
    },
    { name: 'args null', args: null, message: 'invalid arguments: must be an object, received null' },
    {
      name: 'args a string',
      args: '{"questions":[]}',
      message: 'invalid arguments: must be an object, received string',
    },
    {
      name: 'args an array',
      args: [question()],
      message: 'invalid arguments: must be an object, received array',
    },
    {
      name: 'args undefined',
      args: undefined,
      message: 'invalid arguments: must be an object, received undefined',
    },
    {
      name: 'an empty id',
      args: { questions: [question({ id: '' })] },
      message: 'invalid arguments: questions[0].id: must not be empty',
    },
    {
      name: 'an id longer than 100 characters',
      args: { questions: [question({ id: 'i'.repeat(101) })] },
      message: 'invalid arguments: questions[0].id: must be at most 100 characters',
    },
    {
      name: 'a question longer than 4000 characters',
      args: { questions: [question({ question: 'q'.repeat(4001) })] },
      message: 'invalid arguments: questions[0].question: must be at most 4000 characters',
    },
    {
      name: 'more than 20 options',
      args: {
        questions: [
          question({ options: Array.from({ length: 21 }, (_, index) => ({ label: `o${index}` })) }),
        ],
      },
      message: 'invalid arguments: questions[0].options: must have at most 20 items',
    },
    {
      name: 'a blank label',
      args: { questions: [question({ options: [{ label: '  ' }] })] },
      message: 'invalid arguments: questions[0].options[0].label: must not be blank',
    },
    {
      name: 'a label longer than 200 characters',
      args: { questions: [question({ options: [{ label: 'l'.repeat(201) }] })] },
      message: 'invalid arguments: questions[0].options[0].label: must be at most 200 characters',
    },
    {
      name: 'an option description longer than 1000 characters',
      args: { questions: [question({ options: [{ label: 'Yes', description: 'd'.repeat(1001) }] })] },
      message: 'invalid arguments: questions[0].options[0].description: must be at most 1000 characters',
    },
    {
      name: 'options that is an object',
      args: { questions: [question({ options: { label: 'Yes' } })] },
      message: 'invalid arguments: questions[0].options: must be an array, received object',
    },
    {
      name: 'multi_select as a string',
      args: { questions: [question({ multi_select: 'true' })] },
      message: 'invalid arguments: questions[0].multi_select: must be a boolean, received string',
    },
    {
      name: 'several problems are listed together, at most five, then a count',
      args: { questions: [{}, {}, { id: 'c', question: '' }] },
      message:
        'invalid arguments: questions[0].id: is required; questions[0].question: is required; ' +
        'questions[1].id: is required; questions[1].question: is required; ' +
        'questions[2].question: must not be blank',
    },
    {
      name: 'more than five problems end in "and N more"',
      args: { questions: [{}, {}, {}, {}] },
      message:
        'invalid arguments: questions[0].id: is required; questions[0].question: is required; ' +
        'questions[1].id: is required; questions[1].question: is required; ' +
        'questions[2].id: is required; and 3 more',
    },
  ];
  for (const { name, args, message } of cases) {
    test(name, async () => {
      const { provider, requests } = scriptedProvider(() => ({ answers: [] }));
      const tool = createAskUserQuestionTool({ userInteraction: provider });
      await failure(tool.execute(args), 'INVALID_ARGS', message);
      assert.equal(requests.length, 0);
    });
  }

  /** 20 questions of 20 options, every text at its limit; option descriptions only on the first `described`. */
  function largestQuestions(described: number) {
    return Array.from({ length: 20 }, (_, index) => ({
      id: `${index}`.padStart(100, 'i'),
      question: 'q'.repeat(4000),
      header: 'h'.repeat(80),
      options: Array.from({ length: 20 }, (_, option) => ({
        label: `${option}`.padStart(200, 'l'),
        ...(index < described ? { description: 'd'.repeat(1000) } : {}),
      })),
      multi_select: true,
    }));
  }

  test('the limits themselves are accepted: 20 questions and 20 options, each text at its maximum', async () => {
    // Every field at its limit, and descriptions on as many questions as the 256 KiB request budget allows.
    const questions = largestQuestions(3);
    assert.ok(Buffer.byteLength(JSON.stringify({ questions })) <= MAX_REQUEST_BYTES);
    const tool = answering({ answers: questions.map((item) => ({ id: item.id, selected: [] })) });
    const text = await tool.execute({ questions });
    assert.equal(
      text,
      `{"answers":[${questions.map((item) => `{"id":"${item.id}","selected":[]}`).join(',')}]}`,
    );
  });

  test('a request over the 256 KiB budget is refused naming its size and the limit', async () => {
    assert.equal(MAX_REQUEST_BYTES, 262_144);
    const questions = largestQuestions(20);
    const { provider, requests } = scriptedProvider(() => ({ answers: [] }));
    const tool = createAskUserQuestionTool({ userInteraction: provider });
    await failure(
      tool.execute({ questions }),
      'INVALID_ARGS',
      'invalid arguments: questions: the request is 576955 bytes, over the 262144-byte limit',
    );
    // Measured on the request the tool builds and a provider stores: `multiSelect`, one byte shorter than the
    // model's `multi_select`, for each of the 20 questions.
    assert.equal(Buffer.byteLength(JSON.stringify({ questions })), 576_955 + 20);
    assert.equal(requests.length, 0);
  });

  test('the budget counts UTF-8 bytes of what is kept: multi-byte text counts more, dropped keys not at all', async () => {
    // 20 questions of 4000 "界" (3 bytes each): 240,000 bytes of text plus the JSON around it.
    const questions = Array.from({ length: 20 }, (_, index) => ({
      id: `q${index}`,
      question: '界'.repeat(4000),
    }));
    const size = Buffer.byteLength(JSON.stringify({ questions }));
    assert.ok(size > 240_000 && size <= MAX_REQUEST_BYTES);
    const tool = answering({ answers: questions.map((item) => ({ id: item.id, selected: [] })) });
    // Unknown keys are dropped before measuring, so a huge one does not count.
    await tool.execute({ questions, reasoning: 'r'.repeat(300_000) });
    // Four bytes a character instead of three: over. (Characters are code points: 4000 "😀" are 4000.)
    const astral = questions.map((item) => ({ ...item, question: '😀'.repeat(4000) }));
    const astralSize = Buffer.byteLength(JSON.stringify({ questions: astral }));
    await failure(
      tool.execute({ questions: astral }),
      'INVALID_ARGS',
      `invalid arguments: questions: the request is ${astralSize} bytes, over the 262144-byte limit`,
    );
  });
});

describe('null in an optional field is read as absent (OpenAI strict mode)', () => {
  test('every optional field null: the call succeeds and the provider sees none of them', async () => {
    const { provider, requests } = scriptedProvider(() => ({
      answers: [
        { id: 'env', selected: ['production'] },
        { id: 'note', selected: [], custom: 'ship it' },
      ],
    }));
    const tool = createAskUserQuestionTool({ userInteraction: provider });
    const text = await tool.execute({
      questions: [
        {
          id: 'env',
          question: 'Which environment?',
          header: null,
          options: [
            { label: 'staging', description: null },
            { label: 'production', description: 'Customers see it' },
          ],
          multi_select: null,
        },
        { id: 'note', question: 'Anything else?', header: null, options: null, multi_select: null },
      ],
    });
    assert.equal(
      text,
      '{"answers":[{"id":"env","selected":["production"]},{"id":"note","selected":[],"custom":"ship it"}]}',
    );
    assert.deepEqual(requests[0]?.questions, [
      {
        id: 'env',
        question: 'Which environment?',
        options: [{ label: 'staging' }, { label: 'production', description: 'Customers see it' }],
      },
      { id: 'note', question: 'Anything else?' },
    ]);
  });

  test('null in a required field is still refused', async () => {
    const tool = answering({ answers: [] });
    await failure(
      tool.execute({ questions: [{ id: null, question: 'Proceed?', options: [{ label: null }] }] }),
      'INVALID_ARGS',
      'invalid arguments: questions[0].id: must be a string, received null; questions[0].options[0].label: must be a string, received null',
    );
  });
});

describe('unknown extra keys are dropped, not refused', () => {
  test('the provider never sees them, and the call succeeds', async () => {
    const { provider, requests } = scriptedProvider(() => ({ answers: [{ id: 'a', selected: ['Yes'] }] }));
    const tool = createAskUserQuestionTool({ userInteraction: provider });
    const text = await tool.execute({
      questions: [
        {
          id: 'a',
          question: 'Proceed?',
          options: [{ label: 'Yes', emoji: '👍' }],
          multiSelect: true,
          required: true,
        },
      ],
      reasoning: 'I need to confirm before deleting files',
    });
    assert.equal(text, '{"answers":[{"id":"a","selected":["Yes"]}]}');
    assert.deepEqual(requests[0]?.questions, [
      { id: 'a', question: 'Proceed?', options: [{ label: 'Yes' }] },
    ]);
  });
});

describe('EMPTY_QUESTIONS and NO_PROVIDER', () => {
  test('questions: [] fails EMPTY_QUESTIONS without asking', async () => {
    const { provider, requests } = scriptedProvider(() => ({ answers: [] }));
    const tool = createAskUserQuestionTool({ userInteraction: provider });
    await failure(
      tool.execute({ questions: [], note: 'extra keys do not change it' }),
      'EMPTY_QUESTIONS',
      'ask_user_question requires at least one question',
    );
    assert.equal(requests.length, 0);
  });

  test('a service without a provider fails NO_PROVIDER', async () => {
    const tool = createAskUserQuestionTool({ userInteraction: new UserInteractionService() });
    await failure(tool.execute(deployArgs), 'NO_PROVIDER', 'no user-interaction provider is registered');
  });
});

describe('ASK_ABORTED', () => {
  const abortedMessage = 'ask_user_question was aborted before the user answered';

  test('a signal aborted before the call: nothing is asked, even for bad arguments', async () => {
    const { provider, requests } = scriptedProvider(() => ({ answers: [] }));
    const tool = createAskUserQuestionTool({ userInteraction: provider });
    const controller = new AbortController();
    controller.abort();
    await failure(tool.execute(deployArgs, { signal: controller.signal }), 'ASK_ABORTED', abortedMessage);
    await failure(
      tool.execute({ questions: 'nope' }, { signal: controller.signal }),
      'ASK_ABORTED',
      abortedMessage,
    );
    assert.equal(requests.length, 0);
  });

  test(
    'aborted while pending, with a provider that ignores the signal: execute still settles',
    { timeout: 5000 },
    async () => {
      const { provider, requests } = deafProvider();
      const tool = createAskUserQuestionTool({ userInteraction: provider });
      const controller = new AbortController();
      const execution = tool.execute(deployArgs, { signal: controller.signal, toolCallId: 'call_9' });
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(requests.length, 1, 'the question reached the provider before the abort');
      controller.abort(new Error('the turn was interrupted'));
      await failure(execution, 'ASK_ABORTED', abortedMessage);
    },
  );

  test(
    'aborted while pending with the in-memory provider: the question is withdrawn',
    { timeout: 5000 },
    async () => {
      const provider = new InMemoryUserInteraction();
      const tool = createAskUserQuestionTool({ userInteraction: provider });
      const controller = new AbortController();
      const execution = tool.execute(deployArgs, { signal: controller.signal });
      const pending = await provider.nextQuestion();
      assert.deepEqual(
        provider.pending().map((question) => question.id),
        [pending.id],
      );
      controller.abort();
      await failure(execution, 'ASK_ABORTED', abortedMessage);
      assert.deepEqual(provider.pending(), []);
      assert.throws(() => provider.answer(pending.id, { answers: [] }), {
        message: `no pending question with id "${pending.id}"`,
      });
    },
  );

  test('an abort after the answer arrived changes nothing', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => {
      unhandled.push(reason);
    };
    process.on('unhandledRejection', onUnhandled);
    try {
      const provider = new InMemoryUserInteraction();
      const tool = createAskUserQuestionTool({ userInteraction: provider });
      const controller = new AbortController();
      const execution = tool.execute(
        { questions: [{ id: 'a', question: 'Proceed?' }] },
        { signal: controller.signal },
      );
      const pending = await provider.nextQuestion();
      // The answer is recorded first; the turn is interrupted before the call has returned it.
      provider.answer(pending.id, { answers: [{ id: 'a', selected: [], custom: 'yes' }] });
      controller.abort();
      assert.equal(await execution, '{"answers":[{"id":"a","selected":[],"custom":"yes"}]}');
      await new Promise((resolve) => setImmediate(resolve));
      // Settled, the call has let go of the turn's signal, and the abort left no rejection behind.
      assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
      assert.deepEqual(unhandled, []);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

describe('BAD_ANSWER when a provider returns an answer that breaks a rule', () => {
  const prefix = 'ask_user_question received an invalid answer: ';
  const skip = (id: string) => ({ id, selected: [] });
  const cases: { rule: string; answer: unknown; reason: string }[] = [
    { rule: 'shape', answer: 'staging', reason: 'the answer must be an object with an "answers" array' },
    { rule: 'shape', answer: undefined, reason: 'the answer must be an object with an "answers" array' },
    {
      rule: 'shape',
      answer: { answers: [{ id: 'env', selected: 'production' }] },
      reason: 'answers[0].selected must be an array of strings',
    },
    {
      rule: 'ids',
      answer: { answers: [skip('env'), skip('checks')] },
      reason: 'expected 3 answers (one per question, in order), received 2',
    },
    {
      rule: 'ids',
      answer: { answers: [skip('env'), skip('note'), skip('checks')] },
      reason: 'answers[1].id: expected "checks", received "note"',
    },
    {
      rule: 'unknown-label',
      answer: { answers: [{ id: 'env', selected: ['dev'] }, skip('checks'), skip('note')] },
      reason: 'answers[0].selected: "dev" is not an option of question "env"',
    },
    {
      rule: 'single-select',
      answer: {
        answers: [
          { id: 'env', selected: ['staging (Recommended)', 'production'] },
          skip('checks'),
          skip('note'),
        ],
      },
      reason: 'answers[0].selected: question "env" allows one label, received 2',
    },
    {
      rule: 'duplicate-label',
      answer: { answers: [skip('env'), { id: 'checks', selected: ['e2e', 'e2e'] }, skip('note')] },
      reason: 'answers[1].selected: duplicate label "e2e"',
    },
    {
      rule: 'blank-custom',
      answer: { answers: [skip('env'), skip('checks'), { id: 'note', selected: [], custom: '   ' }] },
      reason: 'answers[2].custom: must not be blank',
    },
    {
      rule: 'custom-with-labels',
      answer: {
        answers: [skip('env'), { id: 'checks', selected: ['lint'], custom: 'and fuzzing' }, skip('note')],
      },
      reason: 'answers[1]: custom cannot be combined with selected labels',
    },
  ];
  for (const { rule, answer, reason } of cases) {
    test(`${rule}: ${reason}`, async () => {
      const error = await failure(answering(answer).execute(deployArgs), 'BAD_ANSWER', `${prefix}${reason}`);
      assert.equal(error.rule, rule);
    });
  }
});

describe('the request handed to the provider', () => {
  test('multi_select becomes multiSelect; agent, toolCallId and the very same signal come from exec', async () => {
    const { provider, requests } = scriptedProvider(() => ({
      answers: [
        { id: 'env', selected: [] },
        { id: 'checks', selected: [] },
        { id: 'note', selected: [] },
      ],
    }));
    const tool = createAskUserQuestionTool({ userInteraction: provider });
    const controller = new AbortController();
    const agent = { id: 'deploy-bot', sessionId: 'session-42' };
    await tool.execute(deployArgs, { signal: controller.signal, toolCallId: 'call_abc', agent });
    const [request] = requests;
    assert.ok(request !== undefined);
    assert.equal(request.signal, controller.signal);
    assert.deepEqual(request.agent, { id: 'deploy-bot', sessionId: 'session-42' });
    assert.equal(request.toolCallId, 'call_abc');
    // The seam form of the batch, written out on its own in test/helpers/questions.ts.
    assert.deepEqual(request.questions, [environmentQuestion, checksQuestion, noteQuestion]);
  });

  test('without exec, the request carries only the questions', async () => {
    const { provider, requests } = scriptedProvider(() => ({ answers: [{ id: 'a', selected: [] }] }));
    const tool = createAskUserQuestionTool({ userInteraction: provider });
    await tool.execute({ questions: [{ id: 'a', question: 'Proceed?', multi_select: false, options: [] }] });
    assert.deepEqual(requests[0], {
      questions: [{ id: 'a', question: 'Proceed?', options: [], multiSelect: false }],
    });
    assert.deepEqual(Object.keys(requests[0] ?? {}), ['questions']);
  });

  test('toAskUserQuestions converts parsed arguments on its own', () => {
    assert.deepEqual(
      toAskUserQuestions({
        questions: [{ id: 'x', question: 'Pick', multi_select: true, options: [{ label: 'A' }] }],
      }),
      [{ id: 'x', question: 'Pick', multiSelect: true, options: [{ label: 'A' }] }],
    );
  });
});

describe('provider failures', () => {
  const args = { questions: [{ id: 'a', question: 'Proceed?' }] };

  test('an Error that is not a UserInteractionError becomes ASK_UNAVAILABLE, keeping the cause', async () => {
    const cause = new Error('connect ECONNREFUSED 127.0.0.1:7233');
    const tool = createAskUserQuestionTool({ userInteraction: { ask: () => Promise.reject(cause) } });
    const error = await failure(
      tool.execute(args),
      'ASK_UNAVAILABLE',
      'ask_user_question could not reach the question service: connect ECONNREFUSED 127.0.0.1:7233',
    );
    assert.equal(error.cause, cause);
  });

  test('a provider that throws synchronously, or throws a string, also becomes ASK_UNAVAILABLE', async () => {
    const throwing = createAskUserQuestionTool({
      userInteraction: {
        ask: () => {
          throw new TypeError('provider is not configured');
        },
      },
    });
    await failure(
      throwing.execute(args),
      'ASK_UNAVAILABLE',
      'ask_user_question could not reach the question service: provider is not configured',
    );
    const rejectingString = createAskUserQuestionTool({
      userInteraction: { ask: () => rejectWith('socket hang up') },
    });
    await failure(
      rejectingString.execute(args),
      'ASK_UNAVAILABLE',
      'ask_user_question could not reach the question service: socket hang up',
    );
  });

  test('a rejection that cannot be turned into a string still becomes ASK_UNAVAILABLE', async () => {
    const tool = createAskUserQuestionTool({
      userInteraction: { ask: () => rejectWith(Object.create(null)) },
    });
    await failure(
      tool.execute(args),
      'ASK_UNAVAILABLE',
      'ask_user_question could not reach the question service: [object Object]',
    );
  });

  test('a UserInteractionError from the provider reaches the model unchanged', async () => {
    const expired = UserInteractionError.expired('30m');
    const tool = createAskUserQuestionTool({ userInteraction: { ask: () => Promise.reject(expired) } });
    const error = await failure(
      tool.execute(args),
      'ASK_EXPIRED',
      'ask_user_question expired after 30m without an answer',
    );
    assert.equal(error, expired);
  });

  test('a plain-JavaScript provider that returns its answer directly, not as a promise, is read normally', async () => {
    const provider = { ask: () => ({ answers: [{ id: 'a', selected: [], custom: 'yes, go' }] }) };
    const tool = createAskUserQuestionTool({ userInteraction: provider as unknown as UserInteraction });
    assert.equal(await tool.execute(args), '{"answers":[{"id":"a","selected":[],"custom":"yes, go"}]}');
  });
});
