/**
 * The comparison's orders (`bench/order.ts`): each is the workloads in some order, one seed gives the same orders
 * again, and over many turns each workload follows every other one.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { RunOrder, newSeed } from '../../bench/order';

const WORKLOADS = ['floor', 'ours', 'as sent', 'bare', 'control'] as const;

test('every order holds each workload once, and a seed repeats its orders', () => {
  const first = new RunOrder(1234);
  const again = new RunOrder(1234);
  for (let turn = 0; turn < 50; turn += 1) {
    const order = first.shuffle(WORKLOADS);
    assert.deepEqual([...order].sort(), [...WORKLOADS].sort());
    assert.deepEqual(again.shuffle(WORKLOADS), order);
  }
  assert.notDeepEqual(
    Array.from({ length: 5 }, () => new RunOrder(1).shuffle(WORKLOADS).join()),
    Array.from({ length: 5 }, () => new RunOrder(2).shuffle(WORKLOADS).join()),
  );
});

test('over many turns, each workload runs right after every other one', () => {
  const order = new RunOrder(7);
  const follows = new Map<string, number>();
  for (let turn = 0; turn < 400; turn += 1) {
    const shuffled = order.shuffle(WORKLOADS);
    for (let index = 1; index < shuffled.length; index += 1) {
      const pair = `${shuffled[index - 1]} > ${shuffled[index]}`;
      follows.set(pair, (follows.get(pair) ?? 0) + 1);
    }
  }
  // 5 x 4 ordered pairs, each expected 400 x 4 / 20 = 80 times.
  assert.equal(follows.size, WORKLOADS.length * (WORKLOADS.length - 1));
  for (const [pair, count] of follows) assert.ok(count > 40 && count < 120, `${pair}: ${count}`);
});

test('a new seed is a whole number that --seed takes back', () => {
  for (let draw = 0; draw < 100; draw += 1) {
    const seed = newSeed();
    assert.ok(Number.isInteger(seed) && seed >= 1 && seed < 2 ** 31, String(seed));
  }
});
