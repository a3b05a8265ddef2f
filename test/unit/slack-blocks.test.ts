/**
 * The bot's Block Kit messages and modals: which control each question gets, Slack's limits held for the largest
 * request the tool accepts (with a workflow id at the server's length limit), options that stay exact when
 * their labels are cut, what a modal remembers, what an edit the agent cannot run is shown as (in the Edit… modal
 * and once decided), and the bounded name cache.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import fc from 'fast-check';

import { checkAnswer } from '../../src/answer/answer-rules';
import { MAX_WORKFLOW_ID_LENGTH } from '../../src/question/workflow-id';
import {
  SLACK_ACTIONS,
  SLACK_LIMITS,
  decodeRef,
  encodeRef,
  interactiveMessage,
  staticMessage,
} from '../../src/slack-messages';
import { decodeViewContext, editModal, encodeViewContext, otherModal } from '../../src/slack/slack-modals';
import { answerFrom, chosenFromState } from '../../src/slack/slack-payload';
import { SlackUserNames } from '../../src/slack/slack-users';
import type { AskUserQuestion, QuestionRecord } from '../../src/types';

type Json = Record<string, unknown>;

function record(questions: AskUserQuestion[], extra: Partial<QuestionRecord> = {}): QuestionRecord {
  return {
    questions,
    status: 'pending',
    askedAt: '2026-01-01T00:00:00.000Z',
    rejectedAnswers: [],
    agent: { id: 'deploy-bot' },
    ...extra,
  };
}

/** A value as Slack receives it: JSON. */
function asJson<T>(value: unknown): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

type Message = { text: string; blocks: Json[] };

function message(questions: AskUserQuestion[], workflowId = 'ask-user-question/deploy-bot/call-1'): Message {
  return asJson(interactiveMessage({ event: 'question.pending', workflowId, record: record(questions) }));
}

/** Every element of every actions block. */
function elements(blocks: readonly Json[]): Json[] {
  return blocks.flatMap((block) => (block.type === 'actions' ? (block.elements as Json[]) : []));
}

function actionIds(blocks: readonly Json[]): string[] {
  return elements(blocks).map((element) => String(element.action_id));
}

const options = (count: number) =>
  Array.from({ length: count }, (_, index) => ({ label: `Option ${index}` }));

describe('controls', () => {
  test('one single-select question of up to 5 options: a button each, answering at once, and Other…', () => {
    const { blocks } = message([{ id: 'deploy', question: 'Deploy?', options: options(5) }]);
    assert.deepEqual(actionIds(blocks), [
      ...[0, 1, 2, 3, 4].map((index) => `${SLACK_ACTIONS.answer}.${index}`),
      SLACK_ACTIONS.other,
      SLACK_ACTIONS.decline,
    ]);
  });

  test('six options get a static_select and Submit; multi-select gets checkboxes, past 10 a multi-select menu', () => {
    assert.deepEqual(actionIds(message([{ id: 'a', question: 'A?', options: options(6) }]).blocks), [
      SLACK_ACTIONS.select,
      SLACK_ACTIONS.other,
      SLACK_ACTIONS.submit,
      SLACK_ACTIONS.decline,
    ]);
    const many = message([
      { id: 'a', question: 'A?', multiSelect: true, options: options(10) },
      { id: 'b', question: 'B?', multiSelect: true, options: options(11) },
      { id: 'c', question: 'C?', options: options(2) },
      { id: 'd', question: 'D?' },
    ]);
    const types = elements(many.blocks).map(
      (element) => `${String(element.type)}:${String(element.action_id)}`,
    );
    assert.deepEqual(types, [
      `checkboxes:${SLACK_ACTIONS.check}`,
      `button:${SLACK_ACTIONS.other}`,
      `multi_static_select:${SLACK_ACTIONS.multiSelect}`,
      `button:${SLACK_ACTIONS.other}`,
      // Several questions: a single-select of two options keeps its choice until Submit, in a menu.
      `static_select:${SLACK_ACTIONS.select}`,
      `button:${SLACK_ACTIONS.other}`,
      `button:${SLACK_ACTIONS.other}`,
      `button:${SLACK_ACTIONS.submit}`,
      `button:${SLACK_ACTIONS.decline}`,
    ]);
  });

  test('a free-form question is answered from its modal: Answer…, no Submit', () => {
    const { blocks } = message([{ id: 'why', question: 'Why?' }]);
    const [answer, decline] = elements(blocks);
    assert.deepEqual((answer?.text as Json).text, 'Answer…');
    assert.equal(decline?.action_id, SLACK_ACTIONS.decline);
    assert.equal(elements(blocks).length, 2);
  });

  test('an approval: Approve, Deny… and Edit…, without Edit… when the input is too large to edit in Slack', () => {
    const approval = (input: unknown): Message =>
      asJson(
        interactiveMessage({
          event: 'approval.pending',
          workflowId: 'ask-user-question/deploy-bot/call-2',
          record: record([], { approval: { toolName: 'deploy', input } }),
        }),
      );
    assert.deepEqual(actionIds(approval({ version: '1.4.2' }).blocks), [
      SLACK_ACTIONS.approve,
      SLACK_ACTIONS.deny,
      SLACK_ACTIONS.edit,
    ]);
    assert.deepEqual(actionIds(approval({ blob: 'x'.repeat(3_000) }).blocks), [
      SLACK_ACTIONS.approve,
      SLACK_ACTIONS.deny,
    ]);
  });
});

/** The texts of a message's or modal's mrkdwn sections. */
function sectionTexts(blocks: readonly Json[]): string[] {
  return blocks.flatMap((block) => (block.type === 'section' ? [String((block.text as Json).text)] : []));
}

describe('what a decision becomes', () => {
  const SUGGESTED =
    'deploy does not run: this agent runs a call only with the input its model gave, so it receives a denial ' +
    'that suggests calling deploy again with the edited input.';
  const approval = (onEdit?: 'run' | 'suggest') => ({
    toolName: 'deploy',
    input: { version: '1.4.2' },
    ...(onEdit === undefined ? {} : { onEdit }),
  });

  test("the Edit… modal of an approval whose agent runs only its model's input says an edit is a denial", () => {
    const modal = asJson<Json>(editModal(record([], { approval: approval('suggest') }), '{}'));
    assert.equal((modal.title as Json).text, 'Suggest an input');
    assert.equal((modal.submit as Json).text, 'Deny and suggest');
    assert.deepEqual(sectionTexts(modal.blocks as Json[]), [
      `*An edit does not approve this call.* ${SUGGESTED}`,
    ]);
    for (const onEdit of [undefined, 'run'] as const) {
      const runs = asJson<Json>(editModal(record([], { approval: approval(onEdit) }), '{}'));
      assert.equal((runs.title as Json).text, 'Edit and approve');
      assert.equal((runs.submit as Json).text, 'Approve edit');
      assert.deepEqual(sectionTexts(runs.blocks as Json[]), ['*deploy* runs with this input instead:']);
    }
  });

  test('a tool name as long as a section holds still fits the Edit… modal', () => {
    const long = { ...approval('suggest'), toolName: 't'.repeat(4_000) };
    const modal = asJson<Json>(editModal(record([], { approval: long }), '{}'));
    for (const text of sectionTexts(modal.blocks as Json[])) assert.ok(text.length <= 3_000);
  });

  test('an edit the agent cannot run shows, once decided, as the denial that suggests it', () => {
    const decided = (onEdit?: 'suggest') =>
      asJson<Message>(
        staticMessage({
          event: 'approval.decided',
          workflowId: 'ask-user-question/deploy-bot/call-3',
          record: record([], {
            status: 'answered',
            approval: approval(onEdit),
            decision: { type: 'edit', input: { version: '1.4.3' }, decidedBy: 'alice', decidedAt: 'now' },
          }),
        }),
      );
    const suggested = decided('suggest');
    assert.equal(suggested.text, 'Denied with a suggested input by alice: deploy: deploy');
    assert.deepEqual(sectionTexts(suggested.blocks).slice(1), [
      '*Suggested input:*\n```{\n  "version": "1.4.3"\n}```',
      `*What the agent receives:* ${SUGGESTED}`,
    ]);
    const ran = decided();
    assert.equal(ran.text, 'Approved with an edited input by alice: deploy: deploy');
    assert.deepEqual(sectionTexts(ran.blocks).slice(1), [
      '*Edited input:*\n```{\n  "version": "1.4.3"\n}```',
    ]);
  });
});

describe("Slack's limits", () => {
  test('the largest request the tool accepts fits, with a workflow id at the server limit', () => {
    const longLabel = (index: number) => `${'L'.repeat(190)}${index}`.slice(0, 200);
    const questions: AskUserQuestion[] = Array.from({ length: 20 }, (_, index) => ({
      id: `q${index}`,
      header: 'H'.repeat(80),
      question: 'Q'.repeat(4000),
      multiSelect: index % 2 === 0,
      options: Array.from({ length: 20 }, (_, option) => ({
        label: longLabel(option),
        description: 'D'.repeat(1000),
      })),
    }));
    const workflowId = `ask-user-question/${'w'.repeat(MAX_WORKFLOW_ID_LENGTH - 18)}`;
    assert.equal(workflowId.length, MAX_WORKFLOW_ID_LENGTH);
    const { blocks, text } = message(questions, workflowId);
    assert.ok(blocks.length <= SLACK_LIMITS.blocks, `${blocks.length} blocks`);
    assert.ok(text.length <= 3000);
    for (const block of blocks) {
      if (block.type === 'section') assert.ok(String((block.text as Json).text).length <= 3000);
      if (block.type === 'header') assert.ok(String((block.text as Json).text).length <= 150);
      if (block.type === 'actions')
        assert.ok((block.elements as Json[]).length <= SLACK_LIMITS.elementsPerActions);
    }
    for (const element of elements(blocks)) {
      assert.ok(String(element.action_id).length <= SLACK_LIMITS.actionId);
      if (element.type === 'button') {
        assert.ok(String((element.text as Json).text).length <= SLACK_LIMITS.buttonText);
        if (typeof element.value === 'string') assert.ok(element.value.length <= SLACK_LIMITS.buttonValue);
      }
      for (const option of (element.options as Json[] | undefined) ?? []) {
        assert.ok(String((option.text as Json).text).length <= SLACK_LIMITS.optionText);
        assert.ok(String(option.value).length <= 150);
        const description = option.description as Json | undefined;
        if (description !== undefined)
          assert.ok(String(description.text).length <= SLACK_LIMITS.optionDescription);
      }
    }
    // Every question is in the message.
    assert.equal(elements(blocks).filter((element) => element.action_id === SLACK_ACTIONS.other).length, 20);
  });

  test('labels cut to the same text still answer with their own full label', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 40 }), { minLength: 2, maxLength: 20 }),
        fc.boolean(),
        (suffixes, multiSelect) => {
          const labels = suffixes.map((suffix) => `${'same prefix '.repeat(8)}${suffix}`);
          const question: AskUserQuestion = {
            id: 'pick',
            question: 'Pick',
            multiSelect,
            options: labels.map((label) => ({ label })),
          };
          const { blocks } = message([question]);
          const shown = elements(blocks).flatMap((element) =>
            element.type === 'button' && String(element.action_id).startsWith(`${SLACK_ACTIONS.answer}.`)
              ? [{ text: String((element.text as Json).text), index: decodeRef(element.value)?.option }]
              : ((element.options as Json[] | undefined) ?? []).map((option) => ({
                  text: String((option.text as Json).text),
                  index: Number(option.value),
                })),
          );
          assert.equal(shown.length, labels.length);
          for (const [position, entry] of shown.entries()) {
            assert.ok(entry.text.length <= 75);
            assert.equal(entry.index, position);
            const answer = answerFrom([question], [[entry.index ?? -1]]);
            assert.ok(answer.ok);
            assert.deepEqual(answer.answers, [{ id: 'pick', selected: [labels[position]] }]);
            assert.ok(checkAnswer([question], { answers: answer.answers }).ok);
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('state and references', () => {
  test('a message state is read per question by index; an index no option has is refused, naming it', () => {
    const questions: AskUserQuestion[] = [
      { id: 'a', question: 'A?', multiSelect: true, options: options(3) },
      { id: 'b', question: 'B?', options: options(3) },
      { id: 'c', question: 'C?' },
    ];
    const chosen = chosenFromState(
      {
        'ask_user.q.0': { [SLACK_ACTIONS.check]: { selected_options: [{ value: '2' }, { value: '0' }] } },
        'ask_user.q.1': { [SLACK_ACTIONS.select]: { selected_option: { value: '1' } } },
      },
      3,
    );
    assert.deepEqual(chosen, [[2, 0], [1], null]);
    assert.deepEqual(answerFrom(questions, chosen, new Map([[2, 'because']])), {
      ok: true,
      answers: [
        { id: 'a', selected: ['Option 2', 'Option 0'] },
        { id: 'b', selected: ['Option 1'] },
        { id: 'c', selected: [], custom: 'because' },
      ],
    });
    assert.deepEqual(answerFrom(questions, [[7]]), {
      ok: false,
      reason: 'answers[0].selected: option 7 is not an option of question "a"',
    });
  });

  test("values this module did not write are not read as references; a modal's context round-trips", () => {
    for (const value of [undefined, '', 'yes', '{"q":1}', '{"w":""}', '{"w":"x","o":-1}', '[1]']) {
      assert.equal(decodeRef(value), undefined, String(value));
    }
    assert.deepEqual(decodeRef(encodeRef({ workflowId: 'ask-user-question/a', question: 1, option: 4 })), {
      workflowId: 'ask-user-question/a',
      question: 1,
      option: 4,
    });
    const context = {
      workflowId: 'ask-user-question/a',
      channel: 'C1',
      ts: '1.2',
      question: 1,
      chosen: [[0], null],
    };
    assert.deepEqual(decodeViewContext(encodeViewContext(context)), context);
    assert.equal(decodeViewContext('{"w":"a","c":"C","t":"1","s":[["x"]]}'), undefined);
    assert.equal(encodeViewContext({ ...context, workflowId: 'w'.repeat(3_000) }), undefined);
  });

  test('the Other… modal of several questions requires only the text of the question clicked', () => {
    const modal = asJson<Json>(
      otherModal(
        [
          { id: 'a', question: 'A?' },
          { id: 'b', question: 'B?' },
        ],
        '{}',
        1,
      ),
    );
    const inputs = (modal.blocks as Json[]).filter((block) => block.type === 'input');
    assert.deepEqual(
      inputs.map((block) => [block.block_id, block.optional]),
      [
        ['ask_user.text.0', true],
        ['ask_user.text.1', false],
      ],
    );
    assert.ok(String((modal.title as Json).text).length <= SLACK_LIMITS.modalTitle);
  });
});

describe('SlackUserNames', () => {
  test('caches names, evicts the least recently used past its bound, and forgets them after the TTL', async () => {
    const asked: string[] = [];
    const names = new SlackUserNames(
      async (id) => {
        asked.push(id);
        return `name-of-${id}`;
      },
      { maxEntries: 2, ttlMs: 50 },
    );
    assert.equal(await names.nameOf('U1'), 'name-of-U1');
    assert.equal(await names.nameOf('U2'), 'name-of-U2');
    assert.equal(await names.nameOf('U1'), 'name-of-U1');
    assert.equal(await names.nameOf('U3'), 'name-of-U3'); // evicts U2, the least recently used
    assert.equal(names.size, 2);
    assert.equal(await names.nameOf('U1'), 'name-of-U1');
    assert.equal(await names.nameOf('U2'), 'name-of-U2');
    assert.deepEqual(asked, ['U1', 'U2', 'U3', 'U2']);
    await new Promise((resolve) => setTimeout(resolve, 60));
    await names.nameOf('U2');
    assert.deepEqual(asked, ['U1', 'U2', 'U3', 'U2', 'U2']);
  });

  test('a failed lookup answers with the user id and is not cached', async () => {
    let fail = true;
    const errors: string[] = [];
    const names = new SlackUserNames(
      async () => {
        if (fail) throw new Error('missing_scope');
        return 'alice';
      },
      { onLookupError: (id, error) => errors.push(`${id}: ${(error as Error).message}`) },
    );
    assert.equal(await names.nameOf('U0ALICE'), 'U0ALICE');
    assert.deepEqual(errors, ['U0ALICE: missing_scope']);
    fail = false;
    assert.equal(await names.nameOf('U0ALICE'), 'alice');
  });
});
