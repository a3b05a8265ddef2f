/**
 * The places where this package leans on SDK behaviour with no public API, each kept as the smallest
 * workaround (see the comment at each). These tests fail loudly when an SDK release changes what they read, so
 * an upgrade cannot break them silently.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode } from '@temporalio/worker';

import { channelOf } from '../../src/provider/connection-health';
import { ACTIVATOR_GLOBAL } from '../../src/workflows/task-history';

describe('SDK workarounds', () => {
  test("ConnectionHealth reads the connection's gRPC channel state (no public API: sdk-typescript#312)", async () => {
    // A lazy connection makes no call; its channel exists all the same.
    const connection = Connection.lazy({ address: '127.0.0.1:1' });
    try {
      const channel = channelOf(new Client({ connection }));
      assert.ok(
        channel !== undefined,
        'Connection.client.getChannel() is gone: ConnectionHealth falls back to server calls',
      );
      assert.equal(typeof channel.getConnectivityState(false), 'number');
    } finally {
      await connection.close();
    }
  });

  test('the waiter scopes abort signals through the public Connection.callContextStorage', () => {
    const connection = Connection.lazy({ address: '127.0.0.1:1' });
    assert.equal(typeof connection.callContextStorage.run, 'function');
    assert.equal(typeof connection.callContextStorage.getStore, 'function');
  });

  test("the workflow sandbox keeps its activator, with the last task's SDK version, on the global the first-task check reads", async () => {
    // The SDK's own module, as bundled into every workflow: it must still read the global by this name.
    const { code } = await bundleWorkflowCode({
      workflowsPath: require.resolve('../../src/workflows'),
      logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} },
    });
    assert.ok(
      code.includes(`globalThis.${ACTIVATOR_GLOBAL}`),
      `the SDK no longer keeps the activator on globalThis.${ACTIVATOR_GLOBAL}: noEarlierTaskCompleted() reads nothing`,
    );
    assert.ok(code.includes('sdkVersion'), 'the activator no longer carries sdkVersion');
  });
});
