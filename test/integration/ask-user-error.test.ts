/**
 * `AskUserError.isInstance`, the one check the package's TSDoc tells users to make, holds inside Temporal's
 * workflow sandbox (its own V8 context, where the package's modules are a second copy bundled by webpack):
 * a workflow sees the seam's refusal as an `AskUserError` with its code, and a plain error or a look-alike as
 * none. test/unit/interaction.test.ts covers a copy of the module loaded in another realm by hand.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';

import type { ErrorIdentity } from '../fixtures/error-workflows';
import { startTestEnvironment } from '../helpers/temporal';

Runtime.install({ logger: new DefaultLogger('WARN') });

describe('AskUserError inside the workflow sandbox', () => {
  let env: TestWorkflowEnvironment;

  before(async () => {
    env = await startTestEnvironment();
  });

  after(async () => {
    await env?.teardown();
  });

  test("a workflow tells the package's errors from others with AskUserError.isInstance", async () => {
    const taskQueue = 'ask-user-error-identity';
    const worker = await Worker.create({
      connection: env.nativeConnection,
      namespace: 'default',
      taskQueue,
      workflowsPath: require.resolve('../fixtures/error-workflows'),
      shutdownForceTime: '5s',
    });
    const seen = await worker.runUntil(
      env.client.workflow.execute('errorIdentityWorkflow', {
        workflowId: 'ask-user-error-identity',
        taskQueue,
        workflowExecutionTimeout: '1 minute',
      }) as Promise<ErrorIdentity>,
    );
    assert.deepEqual(seen, {
      isAskUserError: true,
      isUserInteractionError: true,
      code: 'EMPTY_QUESTIONS',
      message: 'ask_user_question requires at least one question',
      plainErrorIsAskUserError: false,
      lookAlikeIsAskUserError: false,
    });
  });
});
