/**
 * `ask-user answer <id>` with no flags in a terminal: the prompt reads option numbers, free text or nothing.
 * The prompt logic is checked on in-memory streams, then the real CLI is run in a pseudo-terminal (`script`
 * from util-linux) against a dev server, and the waiting agent gets exactly what was typed. Also the ops
 * client's `signalAnswer`, which checks an answer before sending it as the fire-and-forget signal.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { after, before, describe, test } from 'node:test';

import { DefaultLogger, Runtime } from '@temporalio/worker';

import { promptForAnswers } from '../../src/cli/interactive-answer';
import { QuestionOperationError, TemporalUserInteraction, questionWorkflowId } from '../../src';
import { createAskUserQuestionTool } from '../../src/tool';
import type { QuestionRecord } from '../../src/types';
import { PROJECT_ROOT } from '../fixtures/child-process';
import { waitForPendingRecord } from '../helpers/pending-questions';
import { startDevServerWithClient, type DevServerWithClient } from '../helpers/temporal';
import { startAskUserWorker, type RunningWorkers } from '../helpers/workers';

const RECORD: QuestionRecord = {
  questions: [
    {
      id: 'env',
      header: 'Target',
      question: 'Where should I deploy?',
      options: [{ label: 'staging (Recommended)' }, { label: 'production', description: 'live traffic' }],
    },
    {
      id: 'checks',
      question: 'Which checks first?',
      options: [{ label: 'unit' }, { label: 'e2e' }, { label: 'lint' }],
      multiSelect: true,
    },
    { id: 'note', question: 'Anything else?' },
    { id: 'skip', question: 'Optional remark?' },
  ],
  status: 'pending',
  askedAt: '2026-11-30T00:00:00.000Z',
  rejectedAnswers: [],
};

describe('the interactive prompt', () => {
  test('numbers pick labels, other text is a custom answer, an empty line skips', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let shown = '';
    output.on('data', (chunk: Buffer) => (shown += chunk.toString('utf8')));
    const answers = promptForAnswers(RECORD, input, output);
    // One line per question: option 2; options 1 and 3; free text; nothing.
    input.write('2\n1, 3\nship it on Friday\n\n');
    assert.deepEqual(await answers, [
      { id: 'env', selected: ['production'] },
      { id: 'checks', selected: ['unit', 'lint'] },
      { id: 'note', selected: [], custom: 'ship it on Friday' },
      { id: 'skip', selected: [] },
    ]);
    assert.match(
      shown,
      /Target\nWhere should I deploy\?\n {2}1\. staging \(Recommended\) {2}★ recommended\n {2}2\. production — live traffic\n/,
    );
    assert.match(shown, /a number, or your own answer \(empty to skip\)> /);
    assert.match(shown, /numbers, comma-separated, or your own answer \(empty to skip\)> /);
  });

  test('a number outside the options is taken as text', async () => {
    const input = new PassThrough();
    const answers = promptForAnswers(
      { ...RECORD, questions: [RECORD.questions[0]!] },
      input,
      new PassThrough(),
    );
    input.write('7\n');
    assert.deepEqual(await answers, [{ id: 'env', selected: [], custom: '7' }]);
  });
});

describe('answering against a dev server', () => {
  const taskQueue = `cli-interactive-${process.pid}`;
  const agent = { id: 'tty-agent' };
  let stack: DevServerWithClient;
  let worker: RunningWorkers;

  before(async () => {
    Runtime.install({ logger: new DefaultLogger('WARN') });
    stack = await startDevServerWithClient('cli-interactive');
    worker = await startAskUserWorker(stack.server.address, taskQueue);
  });

  after(async () => {
    await worker?.stop();
    await stack?.stop();
  });

  /** Asks through the tool; the promise is awaited later, so a rejection is handled from the start. */
  function ask(toolCallId: string): Promise<string> {
    const provider = new TemporalUserInteraction({ client: stack.client, taskQueue });
    const asked = createAskUserQuestionTool({ userInteraction: provider }).execute(
      {
        questions: [
          {
            id: 'env',
            question: 'Where should I deploy?',
            options: [{ label: 'staging (Recommended)' }, { label: 'production' }],
          },
          { id: 'note', question: 'Anything else?' },
        ],
      },
      { agent, toolCallId },
    );
    asked.catch(() => undefined);
    return asked;
  }

  test('ask-user answer in a terminal prompts for each question and records the reply', async () => {
    const toolCallId = 'interactive';
    const workflowId = questionWorkflowId({ agent, toolCallId }, randomUUID);
    const asked = ask(toolCallId);
    await waitForPendingRecord(stack.client, workflowId);

    // `script` gives the CLI a pseudo-terminal, so stdin.isTTY is true as in an operator's shell.
    const command = `node ./bin/ask-user.js answer '${workflowId}' --as tty-operator`;
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, TEMPORAL_ADDRESS: stack.server.address, TEMPORAL_NAMESPACE: 'default' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let shown = '';
    child.stdout.on('data', (chunk: Buffer) => (shown += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve, reject) => {
      child.once('close', (code) => resolve(code));
      child.once('error', (error) =>
        reject(new Error(`could not run script(1) from util-linux: ${error.message}`, { cause: error })),
      );
    });
    exited.catch(() => undefined); // awaited below
    try {
      const waitForPrompt = async (count: number): Promise<void> => {
        for (let waited = 0; (shown.match(/\(empty to skip\)> /g) ?? []).length < count; waited += 100) {
          if (waited > 60_000) assert.fail(`no prompt ${count} after 60 s:\n${shown}`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      };
      await waitForPrompt(1);
      child.stdin.write('1\r');
      await waitForPrompt(2);
      child.stdin.write('after the freeze\r');
      assert.equal(await exited, 0, shown);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    assert.match(shown, /Answered ask-user-question\/tty-agent\/interactive\./);
    assert.equal(
      await asked,
      '{"answers":[{"id":"env","selected":["staging (Recommended)"]},{"id":"note","selected":[],"custom":"after the freeze"}]}',
    );
    assert.equal((await stack.questions.get(workflowId)).answeredBy, 'tty-operator');
  });

  test('signalAnswer refuses an invalid answer before sending, then delivers a valid one', async () => {
    const toolCallId = 'signal-answer';
    const workflowId = questionWorkflowId({ agent, toolCallId }, randomUUID);
    const asked = ask(toolCallId);
    await waitForPendingRecord(stack.client, workflowId);

    await assert.rejects(
      stack.questions.signalAnswer(workflowId, {
        answers: [
          { id: 'env', selected: ['staging (Recommended)', 'production'] },
          { id: 'note', selected: [] },
        ],
      }),
      (error: unknown) => {
        assert.ok(QuestionOperationError.isInstance(error));
        assert.equal(error.code, 'BAD_ANSWER');
        assert.equal(
          error.message,
          'ask_user_question received an invalid answer: answers[0].selected: question "env" allows one label, received 2',
        );
        return true;
      },
    );
    // Refused before sending: the workflow never saw it.
    assert.deepEqual((await waitForPendingRecord(stack.client, workflowId)).rejectedAnswers, []);

    await stack.questions.signalAnswer(workflowId, {
      answers: [
        { id: 'env', selected: ['production'] },
        { id: 'note', selected: [] },
      ],
      answeredBy: 'script',
    });
    assert.equal(
      await asked,
      '{"answers":[{"id":"env","selected":["production"]},{"id":"note","selected":[]}]}',
    );
  });
});
