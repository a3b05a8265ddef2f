/**
 * Runs `examples/agent-loop.ts`, so the example cannot rot: what the loop feeds back to the model for an
 * answer, a corrected answer, a decline, an abort and an unknown tool, and what the example prints.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import {
  DEPLOY_QUESTIONS,
  formatTranscript,
  runAgentLoop,
  scriptedDeployModel,
  simulatedHuman,
  type Human,
  type Message,
  type Model,
} from '../../examples/agent-loop';
import type { InMemoryPendingQuestion } from '../../src/interaction';

const task = 'Deploy build 1.4.2.';
const askCall: Message = {
  role: 'assistant',
  toolCall: { id: 'call_1', name: 'ask_user_question', arguments: DEPLOY_QUESTIONS },
};

function transcript(toolResult: string, reply: string): Message[] {
  return [
    { role: 'user', content: task },
    askCall,
    { role: 'tool', toolCallId: 'call_1', content: toolResult },
    { role: 'assistant', content: reply },
  ];
}

describe('examples/agent-loop.ts', () => {
  test('the human answers: the answer text goes back to the model, which acts on it', async () => {
    const seen: InMemoryPendingQuestion[] = [];
    const human: Human = async (question, refusal) => {
      seen.push(question);
      assert.equal(refusal, undefined);
      return simulatedHuman(question);
    };
    const result = await runAgentLoop({
      task,
      model: scriptedDeployModel,
      human,
      agent: { id: 'deploy-assistant', sessionId: 'session-7' },
    });
    assert.equal(result.stopReason, 'done');
    assert.deepEqual(
      result.messages,
      transcript(
        '{"answers":[{"id":"environment","selected":["staging (Recommended)"]},' +
          '{"id":"checks","selected":["lint","unit tests"]},{"id":"notify","selected":[],"custom":"#deploys"}]}',
        'Deploying build 1.4.2 to staging after lint, unit tests. I will tell #deploys when it is done.',
      ),
    );
    assert.equal(seen.length, 1);
    assert.deepEqual(seen[0]?.request, {
      agent: { id: 'deploy-assistant', sessionId: 'session-7' },
      toolCallId: 'call_1',
      questions: [
        {
          id: 'environment',
          header: 'Target',
          question: 'Where should I deploy build 1.4.2?',
          options: [
            {
              label: 'staging (Recommended)',
              description: 'Verify there first; nobody outside the team sees it',
            },
            { label: 'production', description: 'Customers get it at once' },
          ],
        },
        {
          id: 'checks',
          question: 'Which checks should pass before the deploy?',
          options: [{ label: 'lint' }, { label: 'unit tests' }, { label: 'e2e' }],
          multiSelect: true,
        },
        { id: 'notify', question: 'Who should I tell when it is done?' },
      ],
    });
  });

  test('a refused answer is explained to the human, who corrects it; the model sees only the accepted one', async () => {
    const refusals: (string | undefined)[] = [];
    const human: Human = async (_question, refusal) => {
      refusals.push(refusal);
      const environment = refusal === undefined ? ['staging (Recommended)', 'production'] : ['production'];
      return {
        answers: [
          { id: 'environment', selected: environment },
          { id: 'checks', selected: [] },
          { id: 'notify', selected: [] },
        ],
      };
    };
    const result = await runAgentLoop({ task, model: scriptedDeployModel, human });
    assert.deepEqual(refusals, [
      undefined,
      'ask_user_question received an invalid answer: answers[0].selected: question "environment" allows one label, received 2',
    ]);
    assert.deepEqual(
      result.messages,
      transcript(
        '{"answers":[{"id":"environment","selected":["production"]},{"id":"checks","selected":[]},{"id":"notify","selected":[]}]}',
        'Deploying build 1.4.2 to production after no checks.',
      ),
    );
  });

  test('a custom answer overrides the choices', async () => {
    const human: Human = async () => ({
      answers: [
        { id: 'environment', selected: [], custom: 'canary in eu-west-1' },
        { id: 'checks', selected: ['e2e'] },
        { id: 'notify', selected: [] },
      ],
    });
    const result = await runAgentLoop({ task, model: scriptedDeployModel, human });
    assert.deepEqual(
      result.messages,
      transcript(
        '{"answers":[{"id":"environment","selected":[],"custom":"canary in eu-west-1"},' +
          '{"id":"checks","selected":["e2e"]},{"id":"notify","selected":[]}]}',
        'Deploying build 1.4.2 to canary in eu-west-1 after e2e.',
      ),
    );
  });

  test('a skipped target stops the deploy', async () => {
    const human: Human = async () => ({
      answers: [
        { id: 'environment', selected: [] },
        { id: 'checks', selected: [] },
        { id: 'notify', selected: [] },
      ],
    });
    const result = await runAgentLoop({ task, model: scriptedDeployModel, human });
    assert.deepEqual(
      result.messages,
      transcript(
        '{"answers":[{"id":"environment","selected":[]},{"id":"checks","selected":[]},{"id":"notify","selected":[]}]}',
        'I did not deploy build 1.4.2: you skipped the target environment.',
      ),
    );
  });

  test('the human declines: the model reads the Error text, and the loop does not crash', async () => {
    const human: Human = async () => ({ decline: 'not during the release freeze' });
    const result = await runAgentLoop({ task, model: scriptedDeployModel, human });
    assert.equal(result.stopReason, 'done');
    assert.deepEqual(
      result.messages,
      transcript(
        'Error: the user cancelled ask_user_question: not during the release freeze',
        'I did not deploy build 1.4.2: I could not get an answer ' +
          '(Error: the user cancelled ask_user_question: not during the release freeze).',
      ),
    );
  });

  test('three refused answers in a row decline the question', async () => {
    let attempts = 0;
    const human: Human = async () => {
      attempts += 1;
      return { answers: [{ id: 'environment', selected: ['staging (Recommended)'] }] };
    };
    const result = await runAgentLoop({ task, model: scriptedDeployModel, human });
    assert.equal(attempts, 3);
    assert.deepEqual(result.messages[2], {
      role: 'tool',
      toolCallId: 'call_1',
      content: 'Error: the user cancelled ask_user_question: no valid answer after 3 attempts',
    });
  });

  test('aborting the turn while the human thinks: the tool fails ASK_ABORTED and the loop stops', async () => {
    const controller = new AbortController();
    let replyLate: (() => void) | undefined;
    const human: Human = (question) => {
      // The user interrupts the turn while the question is on screen.
      setImmediate(() => controller.abort());
      return new Promise((resolve) => {
        replyLate = () =>
          resolve({ answers: question.request.questions.map((item) => ({ id: item.id, selected: [] })) });
      });
    };
    const result = await runAgentLoop({ task, model: scriptedDeployModel, human, signal: controller.signal });
    assert.equal(result.stopReason, 'aborted');
    assert.deepEqual(result.messages, [
      { role: 'user', content: task },
      askCall,
      {
        role: 'tool',
        toolCallId: 'call_1',
        content: 'Error: ask_user_question was aborted before the user answered',
      },
    ]);
    // The human's late answer finds the question withdrawn and is dropped without an error.
    replyLate?.();
    await new Promise((resolve) => setImmediate(resolve));
  });

  test('a call to a tool the loop does not have is answered with an Error text', async () => {
    const model: Model = async (messages) => {
      const last = messages[messages.length - 1];
      if (last?.role === 'user')
        return { toolCall: { id: 'call_7', name: 'search_web', arguments: { q: 'x' } } };
      return { text: last?.role === 'tool' ? `Noted: ${last.content}` : '?' };
    };
    const result = await runAgentLoop({ task, model, human: simulatedHuman });
    assert.deepEqual(result.messages, [
      { role: 'user', content: task },
      { role: 'assistant', toolCall: { id: 'call_7', name: 'search_web', arguments: { q: 'x' } } },
      { role: 'tool', toolCallId: 'call_7', content: 'Error: unknown tool "search_web"' },
      { role: 'assistant', content: 'Noted: Error: unknown tool "search_web"' },
    ]);
  });

  test('invalid arguments from the model come back as the INVALID_ARGS text', async () => {
    const model: Model = async (messages) => {
      const last = messages[messages.length - 1];
      if (last?.role === 'user') {
        return {
          toolCall: {
            id: 'call_2',
            name: 'ask_user_question',
            arguments: {
              questions: [{ id: 'env', question: 'Where?', options: [{ label: 'Yes' }, { label: 'Yes' }] }],
            },
          },
        };
      }
      return { text: last?.role === 'tool' ? last.content : '?' };
    };
    const result = await runAgentLoop({ task, model, human: simulatedHuman });
    assert.deepEqual(result.messages.slice(2), [
      {
        role: 'tool',
        toolCallId: 'call_2',
        content: 'Error: invalid arguments: questions[0].options[1].label: duplicate label "Yes"',
      },
      {
        role: 'assistant',
        content: 'Error: invalid arguments: questions[0].options[1].label: duplicate label "Yes"',
      },
    ]);
  });

  test('a model that never stops is cut off after maxSteps', async () => {
    const model: Model = async () => ({ toolCall: { id: 'call_x', name: 'noop', arguments: {} } });
    const result = await runAgentLoop({ task, model, human: simulatedHuman, maxSteps: 2 });
    assert.equal(result.stopReason, 'max-steps');
    assert.equal(result.messages.length, 5);
  });

  test('run directly, it prints the transcript', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', join('examples', 'agent-loop.ts')],
      { cwd: join(__dirname, '../..') },
    );
    const expected = formatTranscript(
      transcript(
        '{"answers":[{"id":"environment","selected":["staging (Recommended)"]},' +
          '{"id":"checks","selected":["lint","unit tests"]},{"id":"notify","selected":[],"custom":"#deploys"}]}',
        'Deploying build 1.4.2 to staging after lint, unit tests. I will tell #deploys when it is done.',
      ),
    );
    assert.equal(stdout, `${expected}\n`);
    assert.equal(
      stdout.split('\n')[1],
      'assistant calls ask_user_question (call_1): ' +
        '{"questions":[{"id":"environment","header":"Target","question":"Where should I deploy build 1.4.2?",' +
        '"options":[{"label":"staging (Recommended)","description":"Verify there first; nobody outside the team sees it"},' +
        '{"label":"production","description":"Customers get it at once"}]},' +
        '{"id":"checks","question":"Which checks should pass before the deploy?",' +
        '"options":[{"label":"lint"},{"label":"unit tests"},{"label":"e2e"}],"multi_select":true},' +
        '{"id":"notify","question":"Who should I tell when it is done?"}],' +
        '"reason":"The task does not say where to deploy."}',
    );
  });
});
