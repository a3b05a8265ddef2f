/**
 * `startDevServer`'s dynamic config values reach the server: a limit set through them is the one it enforces.
 * (The benchmark sets task queue partitions this way, which a client cannot observe; an ID length limit can be.)
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { Connection, WorkflowClient } from '@temporalio/client';

import { freePort, startDevServerProcess } from '../helpers/temporal';

test('a dynamic config value given to startDevServer is the limit the server enforces', async () => {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'dev-server-config-'));
  const server = await startDevServerProcess({
    dbFile: path.join(directory, 'temporal.sqlite'),
    port: await freePort(),
    dynamicConfig: { 'limit.maxIDLength': 40 },
  });
  const connection = await Connection.connect({ address: server.address });
  try {
    const client = new WorkflowClient({ connection, namespace: 'default' });
    const start = (workflowId: string) =>
      client.start('anyWorkflow', { workflowId, taskQueue: 'dynamic-config-test' });
    await assert.rejects(start('x'.repeat(41)), (error: Error) => {
      assert.match(
        String((error.cause as Error | undefined)?.message),
        /INVALID_ARGUMENT: WorkflowId exceeds maximum allowed length \(41\/40\)/,
      );
      return true;
    });
    // One under the limit is taken: the refusal above was the limit, not something else about the start.
    const handle = await start('y'.repeat(40));
    await handle.terminate('started only to show the limit');
  } finally {
    await connection.close();
    await server.stop();
    fs.rmSync(directory, { recursive: true, force: true });
  }
});
