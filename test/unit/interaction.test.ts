/**
 * The user-interaction seam: the error class and its model-facing text, the service that holds one provider,
 * and the in-memory provider (pending list, answer rules at its answering API, decline, abort).
 */
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { createContext, runInContext, runInNewContext } from 'node:vm';
import ts from 'typescript';
import {
  AskUserError,
  InMemoryUserInteraction,
  UserInteractionError,
  UserInteractionService,
  formatToolError,
  type InMemoryPendingQuestion,
} from '../../src/interaction';
import type * as ErrorModule from '../../src/interaction/user-interaction-error';
import type { AskUserQuestion, AskUserQuestionRequest, UserInteraction } from '../../src/types';
import { expectFailure as failure } from '../helpers/interaction';
import {
  checksQuestion as checks,
  environmentQuestion as environment,
  noteQuestion as note,
} from '../helpers/questions';

/** Settles after every callback queued so far, so a promise that should still be pending has had its chance. */
function settled(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Resolves to `'pending'` if `promise` has not settled by now, else to how it settled. */
async function state(promise: Promise<unknown>): Promise<'pending' | 'resolved' | 'rejected'> {
  let outcome: 'pending' | 'resolved' | 'rejected' = 'pending';
  promise.then(
    () => (outcome = 'resolved'),
    () => (outcome = 'rejected'),
  );
  await settled();
  return outcome;
}

describe('UserInteractionError', () => {
  test('every code carries the message of the contract', () => {
    const table: [UserInteractionError, string, string][] = [
      [
        UserInteractionError.invalidArgs(['questions[0].options[1].label: duplicate label "Yes"']),
        'INVALID_ARGS',
        'invalid arguments: questions[0].options[1].label: duplicate label "Yes"',
      ],
      [
        UserInteractionError.invalidArgs([
          'questions[0].id: is required',
          'questions[0].question: is required',
        ]),
        'INVALID_ARGS',
        'invalid arguments: questions[0].id: is required; questions[0].question: is required',
      ],
      [
        UserInteractionError.emptyQuestions(),
        'EMPTY_QUESTIONS',
        'ask_user_question requires at least one question',
      ],
      [UserInteractionError.noProvider(), 'NO_PROVIDER', 'no user-interaction provider is registered'],
      [
        UserInteractionError.duplicateProvider(),
        'DUPLICATE_PROVIDER',
        'a user-interaction provider is already registered; dispose it first',
      ],
      [
        UserInteractionError.aborted(),
        'ASK_ABORTED',
        'ask_user_question was aborted before the user answered',
      ],
      [UserInteractionError.cancelled(), 'ASK_CANCELLED', 'the user cancelled ask_user_question'],
      [UserInteractionError.cancelled('  '), 'ASK_CANCELLED', 'the user cancelled ask_user_question'],
      [
        UserInteractionError.cancelled('not during the freeze'),
        'ASK_CANCELLED',
        'the user cancelled ask_user_question: not during the freeze',
      ],
      [
        UserInteractionError.expired('30m'),
        'ASK_EXPIRED',
        'ask_user_question expired after 30m without an answer',
      ],
      [
        UserInteractionError.unavailable('connect ECONNREFUSED 127.0.0.1:7233'),
        'ASK_UNAVAILABLE',
        'ask_user_question could not reach the question service: connect ECONNREFUSED 127.0.0.1:7233',
      ],
      [
        UserInteractionError.badAnswer('answers[0].custom: must not be blank', 'blank-custom'),
        'BAD_ANSWER',
        'ask_user_question received an invalid answer: answers[0].custom: must not be blank',
      ],
    ];
    for (const [error, code, message] of table) {
      assert.equal(error.code, code);
      assert.equal(error.message, message);
      assert.equal(error.name, 'UserInteractionError');
      assert.ok(error instanceof Error);
      assert.equal(formatToolError(error), `Error: ${message}`);
    }
  });

  test('BAD_ANSWER keeps the broken rule; other codes carry none', () => {
    assert.equal(UserInteractionError.badAnswer('x', 'single-select').rule, 'single-select');
    assert.equal(UserInteractionError.badAnswer('x').rule, undefined);
    assert.equal('rule' in UserInteractionError.aborted(), false);
  });

  test('ASK_UNAVAILABLE keeps its cause; the others have none', () => {
    const cause = new Error('socket closed');
    assert.equal(UserInteractionError.unavailable('socket closed', cause).cause, cause);
    assert.equal('cause' in UserInteractionError.aborted(), false);
  });
});

describe('formatToolError', () => {
  test('renders anything as "Error: <message>" text for the model', () => {
    assert.equal(
      formatToolError(UserInteractionError.noProvider()),
      'Error: no user-interaction provider is registered',
    );
    assert.equal(formatToolError(new TypeError('fetch failed')), 'Error: fetch failed');
    assert.equal(formatToolError('timeout'), 'Error: timeout');
    assert.equal(formatToolError(undefined), 'Error: undefined');
    assert.equal(formatToolError(42), 'Error: 42');
    assert.equal(formatToolError({ message: 'deadline exceeded', code: 4 }), 'Error: deadline exceeded');
    assert.equal(formatToolError(Object.create(null)), 'Error: [object Object]');
    assert.equal(formatToolError(runInNewContext(`new RangeError('out of range')`)), 'Error: out of range');
  });
});

describe('UserInteractionError.isInstance across realms and copies', () => {
  test('recognises an error carrying the marker that was built in another realm', () => {
    const foreign: unknown = runInNewContext(`
      const error = new Error('ask_user_question was aborted before the user answered');
      error.name = 'UserInteractionError';
      error.code = 'ASK_ABORTED';
      error[Symbol.for('durable-ask-user.UserInteractionError')] = true;
      error;
    `);
    assert.equal(foreign instanceof Error, false, 'the object really comes from another realm');
    assert.equal(foreign instanceof UserInteractionError, false);
    assert.equal(UserInteractionError.isInstance(foreign), true);
    assert.equal(formatToolError(foreign), 'Error: ask_user_question was aborted before the user answered');
  });

  test('recognises an error from a second copy of the module, loaded in another realm', () => {
    // A second copy of the package, as a bundler or a test runner's isolated realm produces it: the module's
    // own source, compiled and evaluated apart from the copy this file imported.
    // Its relative imports (the error base class, the shared helpers) are loaded the same way, into the same
    // other realm.
    const context = createContext({});
    const load = (file: string): unknown => {
      const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), {
        compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
      });
      const loaded = { exports: {} };
      const requireInRealm = (specifier: string): unknown => {
        const base = join(dirname(file), specifier);
        return load(existsSync(`${base}.ts`) ? `${base}.ts` : join(base, 'index.ts'));
      };
      const evaluate = runInContext(`(function (module, exports, require) {${outputText}\n})`, context) as (
        module: { exports: unknown },
        exports: unknown,
        require: (specifier: string) => unknown,
      ) => void;
      evaluate(loaded, loaded.exports, requireInRealm);
      return loaded.exports;
    };
    const loaded = { exports: load(join(__dirname, '../../src/interaction/user-interaction-error.ts')) };
    const copy = loaded.exports as typeof ErrorModule;

    assert.notEqual(copy.UserInteractionError, UserInteractionError, 'a distinct copy was loaded');
    const fromCopy = copy.UserInteractionError.expired('1h');
    assert.equal(fromCopy instanceof UserInteractionError, false);
    assert.equal(fromCopy instanceof Error, false);
    assert.equal(UserInteractionError.isInstance(fromCopy), true);
    // The base class the package's TSDoc tells users to check: the copy's errors are AskUserErrors here too.
    assert.equal(AskUserError.isInstance(fromCopy), true);
    assert.equal(fromCopy.code, 'ASK_EXPIRED');
    assert.equal(formatToolError(fromCopy), 'Error: ask_user_question expired after 1h without an answer');
    assert.equal(copy.UserInteractionError.isInstance(UserInteractionError.aborted()), true);
    assert.equal(copy.UserInteractionError.isInstance(new Error('boom')), false);
  });

  test('rejects plain Errors, look-alikes without the marker, and non-objects', () => {
    const lookAlike = Object.assign(new Error('no user-interaction provider is registered'), {
      name: 'UserInteractionError',
      code: 'NO_PROVIDER',
    });
    const wrongMarkerValue = { [Symbol.for('durable-ask-user.UserInteractionError')]: 'yes' };
    const localSymbol = { [Symbol('durable-ask-user.UserInteractionError')]: true };
    const foreignError: unknown = runInNewContext(`new Error('boom')`);
    for (const value of [
      new Error('boom'),
      lookAlike,
      wrongMarkerValue,
      localSymbol,
      foreignError,
      null,
      undefined,
      'ASK_ABORTED',
      0,
    ]) {
      assert.equal(UserInteractionError.isInstance(value), false, `accepted ${String(value)}`);
    }
  });
});

describe('UserInteractionService', () => {
  const request: AskUserQuestionRequest = { questions: [note] };
  const answer = { answers: [{ id: 'note', selected: [], custom: 'all good' }] };

  test('forwards the very same request to the provider and returns its answer', async () => {
    const service = new UserInteractionService();
    const seen: AskUserQuestionRequest[] = [];
    service.registerProvider({
      ask: async (received) => {
        seen.push(received);
        return answer;
      },
    });
    const controller = new AbortController();
    const withSignal: AskUserQuestionRequest = {
      ...request,
      signal: controller.signal,
      toolCallId: 'call_1',
    };
    assert.equal(await service.ask(withSignal), answer);
    assert.equal(seen[0], withSignal);
  });

  test('checks aborted, then empty, then provider', async () => {
    const service = new UserInteractionService();
    const controller = new AbortController();
    controller.abort();
    await failure(
      service.ask({ questions: [], signal: controller.signal }),
      'ASK_ABORTED',
      'ask_user_question was aborted before the user answered',
    );
    await failure(
      service.ask({ questions: [] }),
      'EMPTY_QUESTIONS',
      'ask_user_question requires at least one question',
    );
    await failure(service.ask(request), 'NO_PROVIDER', 'no user-interaction provider is registered');
  });

  test('an aborted signal or empty questions never reach the provider', async () => {
    const service = new UserInteractionService();
    let calls = 0;
    service.registerProvider({
      ask: async () => {
        calls += 1;
        return answer;
      },
    });
    const controller = new AbortController();
    controller.abort();
    await failure(
      service.ask({ ...request, signal: controller.signal }),
      'ASK_ABORTED',
      'ask_user_question was aborted before the user answered',
    );
    await failure(
      service.ask({ questions: [] }),
      'EMPTY_QUESTIONS',
      'ask_user_question requires at least one question',
    );
    assert.equal(calls, 0);
  });

  test('a second provider is refused with DUPLICATE_PROVIDER and the first keeps answering', async () => {
    const service = new UserInteractionService();
    service.registerProvider({ ask: async () => answer });
    let thrown: unknown;
    try {
      service.registerProvider({ ask: async () => ({ answers: [] }) });
    } catch (error) {
      thrown = error;
    }
    assert.ok(UserInteractionError.isInstance(thrown));
    assert.equal(thrown.code, 'DUPLICATE_PROVIDER');
    assert.equal(thrown.message, 'a user-interaction provider is already registered; dispose it first');
    assert.equal(await service.ask(request), answer);
  });

  test('dispose unregisters; a second dispose, or a stale one, never removes a newer provider', async () => {
    const service = new UserInteractionService();
    const first: UserInteraction = {
      ask: async () => ({ answers: [{ id: 'note', selected: [], custom: 'first' }] }),
    };
    const second: UserInteraction = {
      ask: async () => ({ answers: [{ id: 'note', selected: [], custom: 'second' }] }),
    };
    const disposeFirst = service.registerProvider(first);
    assert.equal(service.hasProvider(), true);
    disposeFirst();
    assert.equal(service.hasProvider(), false);
    await failure(service.ask(request), 'NO_PROVIDER', 'no user-interaction provider is registered');

    const disposeSecond = service.registerProvider(second);
    disposeFirst();
    assert.equal(service.hasProvider(), true);
    assert.deepEqual(await service.ask(request), {
      answers: [{ id: 'note', selected: [], custom: 'second' }],
    });
    disposeSecond();
    disposeSecond();
    assert.equal(service.hasProvider(), false);
    service.registerProvider(first);
    assert.deepEqual(await service.ask(request), {
      answers: [{ id: 'note', selected: [], custom: 'first' }],
    });
  });

  test('a question already asked keeps its provider after dispose', async () => {
    const service = new UserInteractionService();
    const provider = new InMemoryUserInteraction();
    const dispose = service.registerProvider(provider);
    const asked = service.ask(request);
    const pending = await provider.nextQuestion();
    dispose();
    provider.answer(pending.id, answer);
    assert.deepEqual(await asked, answer);
  });

  test('forwards the provider failure as it is', async () => {
    const service = new UserInteractionService();
    const cause = new Error('connection lost');
    service.registerProvider({ ask: () => Promise.reject(cause) });
    await assert.rejects(service.ask(request), (error) => error === cause);
  });
});

describe('InMemoryUserInteraction', () => {
  test('lists pending questions oldest first, without their signal, and answers them', async () => {
    const provider = new InMemoryUserInteraction();
    const controller = new AbortController();
    const before = new Date();
    const first = provider.ask({
      questions: [environment],
      agent: { id: 'deploy-bot', sessionId: 's-1' },
      toolCallId: 'call_1',
      signal: controller.signal,
    });
    const second = provider.ask({ questions: [note] });
    const pending = provider.pending();
    assert.deepEqual(
      pending.map(({ id, request }) => ({ id, request })),
      [
        {
          id: 'q-1',
          request: {
            questions: [environment],
            agent: { id: 'deploy-bot', sessionId: 's-1' },
            toolCallId: 'call_1',
          },
        },
        { id: 'q-2', request: { questions: [note] } },
      ],
    );
    assert.ok(pending[0]!.askedAt instanceof Date && pending[0]!.askedAt.getTime() >= before.getTime());

    provider.answer('q-2', {
      answers: [{ id: 'note', selected: [], custom: 'call me' }],
      answeredBy: 'alice',
    });
    assert.deepEqual(await second, { answers: [{ id: 'note', selected: [], custom: 'call me' }] });
    assert.deepEqual(
      provider.pending().map((question) => question.id),
      ['q-1'],
    );
    provider.answer('q-1', { answers: [{ id: 'env', selected: ['staging (Recommended)'] }] });
    assert.deepEqual(await first, { answers: [{ id: 'env', selected: ['staging (Recommended)'] }] });
    assert.deepEqual(provider.pending(), []);
  });

  test('keeps its own copy of the question: changing the request after asking changes nothing', async () => {
    const provider = new InMemoryUserInteraction();
    const questions: AskUserQuestion[] = [{ id: 'env', question: 'Where?', options: [{ label: 'staging' }] }];
    const asked = provider.ask({ questions });
    questions[0]!.options!.push({ label: 'production' });
    assert.throws(() => provider.answer('q-1', { answers: [{ id: 'env', selected: ['production'] }] }), {
      code: 'BAD_ANSWER',
      message:
        'ask_user_question received an invalid answer: answers[0].selected: "production" is not an option of question "env"',
    });
    provider.answer('q-1', { answers: [{ id: 'env', selected: ['staging'] }] });
    assert.deepEqual(await asked, { answers: [{ id: 'env', selected: ['staging'] }] });
  });

  test('onQuestion tells every listener, and unsubscribing stops it', async () => {
    const provider = new InMemoryUserInteraction();
    const seen: string[] = [];
    const unsubscribe = provider.onQuestion((question) => seen.push(`a:${question.id}`));
    provider.onQuestion((question) => seen.push(`b:${question.id}`));
    void provider.ask({ questions: [note] });
    unsubscribe();
    void provider.ask({ questions: [note] });
    assert.deepEqual(seen, ['a:q-1', 'b:q-1', 'b:q-2']);
  });

  test('nextQuestion returns the oldest pending question, or waits for the next one', async () => {
    const provider = new InMemoryUserInteraction();
    const waiting = provider.nextQuestion();
    assert.equal(await state(waiting), 'pending');
    const declined = provider.ask({ questions: [note] });
    void provider.ask({ questions: [environment] });
    assert.equal((await waiting).id, 'q-1');
    assert.equal((await provider.nextQuestion()).id, 'q-1');
    provider.decline('q-1');
    await failure(declined, 'ASK_CANCELLED', 'the user cancelled ask_user_question');
    assert.equal((await provider.nextQuestion()).id, 'q-2');
  });

  describe('refuses an answer that breaks a rule, and the question stays pending', () => {
    const prefix = 'ask_user_question received an invalid answer: ';
    const skip = (id: string) => ({ id, selected: [] });
    const cases: { rule: string; answer: unknown; reason: string }[] = [
      { rule: 'shape', answer: { answer: [] }, reason: 'answers must be an array' },
      {
        rule: 'ids',
        answer: { answers: [skip('env')] },
        reason: 'expected 3 answers (one per question, in order), received 1',
      },
      {
        rule: 'ids',
        answer: { answers: [skip('checks'), skip('env'), skip('note')] },
        reason: 'answers[0].id: expected "env", received "checks"',
      },
      {
        rule: 'unknown-label',
        answer: { answers: [skip('env'), { id: 'checks', selected: ['fuzzing'] }, skip('note')] },
        reason: 'answers[1].selected: "fuzzing" is not an option of question "checks"',
      },
      {
        rule: 'single-select',
        answer: {
          answers: [
            { id: 'env', selected: ['production', 'staging (Recommended)'] },
            skip('checks'),
            skip('note'),
          ],
        },
        reason: 'answers[0].selected: question "env" allows one label, received 2',
      },
      {
        rule: 'duplicate-label',
        answer: { answers: [skip('env'), { id: 'checks', selected: ['lint', 'lint'] }, skip('note')] },
        reason: 'answers[1].selected: duplicate label "lint"',
      },
      {
        rule: 'blank-custom',
        answer: { answers: [skip('env'), skip('checks'), { id: 'note', selected: [], custom: '\t' }] },
        reason: 'answers[2].custom: must not be blank',
      },
      {
        rule: 'custom-with-labels',
        answer: {
          answers: [{ id: 'env', selected: ['production'], custom: 'tonight' }, skip('checks'), skip('note')],
        },
        reason: 'answers[0]: custom cannot be combined with selected labels',
      },
    ];
    for (const { rule, answer, reason } of cases) {
      test(`${rule}: ${reason}`, async () => {
        const provider = new InMemoryUserInteraction();
        const asked = provider.ask({ questions: [environment, checks, note] });
        let thrown: unknown;
        try {
          provider.answer('q-1', answer as never);
        } catch (error) {
          thrown = error;
        }
        assert.ok(UserInteractionError.isInstance(thrown), 'the answering API refused the answer');
        assert.equal(thrown.code, 'BAD_ANSWER');
        assert.equal(thrown.rule, rule);
        assert.equal(thrown.message, `${prefix}${reason}`);
        assert.equal(await state(asked), 'pending');
        assert.deepEqual(
          provider.pending().map((question) => question.id),
          ['q-1'],
        );
        provider.answer('q-1', {
          answers: [skip('env'), { id: 'checks', selected: ['unit tests', 'lint'] }, skip('note')],
        });
        assert.deepEqual(await asked, {
          answers: [skip('env'), { id: 'checks', selected: ['unit tests', 'lint'] }, skip('note')],
        });
      });
    }
  });

  test('decline fails the ask with ASK_CANCELLED and its reason, and withdraws the question', async () => {
    const provider = new InMemoryUserInteraction();
    const withReason = provider.ask({ questions: [note] });
    const withoutReason = provider.ask({ questions: [note] });
    const blankReason = provider.ask({ questions: [note] });
    provider.decline('q-1', 'not during the release freeze');
    provider.decline('q-2');
    provider.decline('q-3', ' ');
    await failure(
      withReason,
      'ASK_CANCELLED',
      'the user cancelled ask_user_question: not during the release freeze',
    );
    await failure(withoutReason, 'ASK_CANCELLED', 'the user cancelled ask_user_question');
    await failure(blankReason, 'ASK_CANCELLED', 'the user cancelled ask_user_question');
    assert.deepEqual(provider.pending(), []);
  });

  test('answering or declining an unknown or settled question throws, naming the id', async () => {
    const provider = new InMemoryUserInteraction();
    const asked = provider.ask({ questions: [note] });
    provider.answer('q-1', { answers: [{ id: 'note', selected: [] }] });
    await asked;
    assert.throws(() => provider.answer('q-1', { answers: [{ id: 'note', selected: [] }] }), {
      code: 'NOT_FOUND',
      message: 'no pending question with id "q-1"',
    });
    assert.throws(() => provider.decline('q-7', 'no'), {
      code: 'NOT_FOUND',
      message: 'no pending question with id "q-7"',
    });
  });

  test('a signal aborted before the call: nothing is listed and no listener hears of it', async () => {
    const provider = new InMemoryUserInteraction();
    const heard: InMemoryPendingQuestion[] = [];
    provider.onQuestion((question) => heard.push(question));
    const controller = new AbortController();
    controller.abort();
    await failure(
      provider.ask({ questions: [note], signal: controller.signal }),
      'ASK_ABORTED',
      'ask_user_question was aborted before the user answered',
    );
    await failure(
      provider.ask({ questions: [] }),
      'EMPTY_QUESTIONS',
      'ask_user_question requires at least one question',
    );
    assert.deepEqual(heard, []);
    assert.deepEqual(provider.pending(), []);
  });

  test('a signal aborted while pending withdraws the question', async () => {
    const provider = new InMemoryUserInteraction();
    const controller = new AbortController();
    const asked = provider.ask({ questions: [note], signal: controller.signal });
    const other = provider.ask({ questions: [note] });
    controller.abort();
    await failure(asked, 'ASK_ABORTED', 'ask_user_question was aborted before the user answered');
    assert.deepEqual(
      provider.pending().map((question) => question.id),
      ['q-2'],
    );
    assert.throws(() => provider.decline('q-1'), { message: 'no pending question with id "q-1"' });
    provider.decline('q-2');
    await failure(other, 'ASK_CANCELLED', 'the user cancelled ask_user_question');
  });

  test('aborting after the answer changes nothing', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => {
      unhandled.push(reason);
    };
    process.on('unhandledRejection', onUnhandled);
    try {
      const provider = new InMemoryUserInteraction();
      const controller = new AbortController();
      const asked = provider.ask({ questions: [note], signal: controller.signal });
      assert.equal(getEventListeners(controller.signal, 'abort').length, 1);
      provider.answer('q-1', { answers: [{ id: 'note', selected: [], custom: 'done' }] });
      // The answer lets go of the signal: a late abort finds nothing to withdraw or reject.
      assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
      controller.abort();
      assert.deepEqual(await asked, { answers: [{ id: 'note', selected: [], custom: 'done' }] });
      await settled();
      assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
      assert.deepEqual(provider.pending(), []);
      assert.deepEqual(unhandled, []);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  test('a listener that throws withdraws the question and fails the ask with ASK_UNAVAILABLE', async () => {
    const provider = new InMemoryUserInteraction();
    provider.onQuestion(() => {
      throw new Error('the terminal is closed');
    });
    const cause = await failure(
      provider.ask({ questions: [note] }),
      'ASK_UNAVAILABLE',
      'ask_user_question could not reach the question service: the terminal is closed',
    );
    assert.equal((cause.cause as Error).message, 'the terminal is closed');
    assert.deepEqual(provider.pending(), []);
  });

  test('an approval whose onEdit is neither run nor suggest is refused, naming the field', async () => {
    const provider = new InMemoryUserInteraction();
    await failure(
      provider.requestApproval({
        toolName: 'deploy',
        toolCallId: 'call_1',
        input: {},
        onEdit: 'maybe' as never,
      }),
      'INVALID_ARGS',
      "invalid arguments: onEdit: must be 'run' or 'suggest'",
    );
    assert.deepEqual(provider.pendingApprovals(), []);
  });

  test('an approval listener that throws withdraws the approval, as for questions', async () => {
    const provider = new InMemoryUserInteraction();
    provider.onApproval(() => {
      throw new Error('the terminal is closed');
    });
    await failure(
      provider.requestApproval({ toolName: 'deploy', toolCallId: 'call_1', input: { env: 'prod' } }),
      'ASK_UNAVAILABLE',
      'ask_user_question could not reach the question service: the terminal is closed',
    );
    assert.deepEqual(provider.pendingApprovals(), []);
  });

  test('a listener that answers at once with an invalid answer fails the ask with that BAD_ANSWER', async () => {
    const provider = new InMemoryUserInteraction();
    provider.onQuestion((question) => provider.answer(question.id, { answers: [] }));
    const error = await failure(
      provider.ask({ questions: [note] }),
      'BAD_ANSWER',
      'ask_user_question received an invalid answer: expected 1 answer (one per question, in order), received 0',
    );
    assert.equal(error.rule, 'ids');
    assert.deepEqual(provider.pending(), []);
  });

  test('a listener may answer at once', async () => {
    const provider = new InMemoryUserInteraction();
    provider.onQuestion((question) =>
      provider.answer(question.id, { answers: [{ id: 'env', selected: ['staging (Recommended)'] }] }),
    );
    assert.deepEqual(await provider.ask({ questions: [environment] }), {
      answers: [{ id: 'env', selected: ['staging (Recommended)'] }],
    });
  });
});
