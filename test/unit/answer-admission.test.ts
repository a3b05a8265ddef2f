/**
 * How an answer's client tells a worker taking tasks from none by the task queue's pollers (`answer-admission.ts`):
 * a poll since the first read moves them; a listed poller whose last poll stays put does not.
 */
import assert from 'node:assert/strict';
import { describe, mock, test } from 'node:test';

import { TaskQueueActivity, pollsMoved } from '../../src/ops/answer-admission';

describe('pollsMoved', () => {
  const before = new Map([
    ['worker-a', 1_000],
    ['worker-b', 2_000],
  ]);

  test('a poller that polled again since the first read moves them', () => {
    assert.equal(pollsMoved(before, new Map([...before, ['worker-b', 2_001]])), true);
  });

  test('a poller not listed at the first read moves them', () => {
    assert.equal(pollsMoved(before, new Map([...before, ['worker-c', 500]])), true);
  });

  test('the same last polls, fewer pollers, or none do not', () => {
    assert.equal(pollsMoved(before, new Map(before)), false);
    assert.equal(pollsMoved(before, new Map([['worker-a', 1_000]])), false);
    assert.equal(pollsMoved(before, new Map()), false);
    assert.equal(pollsMoved(new Map(), new Map()), false);
  });
});

describe('TaskQueueActivity', () => {
  test('a queue seen taking tasks counts as such; another queue does not', () => {
    const activity = new TaskQueueActivity();
    assert.equal(activity.takingTasks('questions'), false);
    activity.sawTakingTasks('questions');
    assert.equal(activity.takingTasks('questions'), true);
    assert.equal(activity.takingTasks('other-questions'), false);
  });

  test('for 3 s', () => {
    mock.timers.enable({ apis: ['Date'], now: 1_000_000 });
    try {
      const activity = new TaskQueueActivity();
      activity.sawTakingTasks('questions');
      mock.timers.tick(2_999);
      assert.equal(activity.takingTasks('questions'), true);
      mock.timers.tick(1);
      assert.equal(activity.takingTasks('questions'), false);
    } finally {
      mock.timers.reset();
    }
  });

  test('it remembers the last 100 queues', () => {
    const activity = new TaskQueueActivity();
    for (let index = 0; index <= 100; index += 1) activity.sawTakingTasks(`queue-${index}`);
    assert.equal(activity.takingTasks('queue-0'), false);
    assert.equal(activity.takingTasks('queue-1'), true);
    assert.equal(activity.takingTasks('queue-100'), true);
  });
});
