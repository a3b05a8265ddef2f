/**
 * What the end-to-end tests of `ask-user mcp` share: the "deploy" question and its answer texts, and a stack of
 * a dev server, an ask-user worker on a task queue of the test file's own, and `ask-user mcp --http` processes
 * against them, with a person answering from another process (`ask-user answer`).
 */
import assert from 'node:assert/strict';

import { DefaultLogger, Runtime } from '@temporalio/worker';

import { killChildren, startChild, type RunningChild } from '../fixtures/child-process';
import { startDevServerWithClient, type DevServerWithClient } from './temporal';
import { startAskUserWorker, type RunningWorkers } from './workers';

/** The arguments of one `ask_user_question` call: may build 1.4.2 go to production? */
export const DEPLOY_ARGS = {
  questions: [
    {
      id: 'deploy',
      header: 'Deploy',
      question: 'Deploy build 1.4.2 to production now?',
      options: [{ label: 'Yes (Recommended)', description: 'All checks passed' }, { label: 'No' }],
    },
  ],
};
/** The tool's result text once the answer is "Yes (Recommended)". */
export const YES_TEXT = '{"answers":[{"id":"deploy","selected":["Yes (Recommended)"]}]}';
/** The tool's result text once the answer is "No". */
export const NO_TEXT = '{"answers":[{"id":"deploy","selected":["No"]}]}';

/** The line `ask-user mcp --http` prints once it listens, before its URL. */
const LISTENING = 'ask-user mcp: streamable HTTP on ';

/** Options of {@link startMcpStack}. */
export interface McpStackOptions {
  /** Options of the worker; `false`: no worker until the test starts one. Default: a worker with none. */
  worker?: false | Parameters<typeof startAskUserWorker>[3];
  /** Environment every process of the stack gets besides the Temporal connection and task queue. */
  env?: Record<string, string>;
}

/** A running stack (see the module comment). */
export interface McpStack {
  dev: DevServerWithClient;
  taskQueue: string;
  /** The environment of the stack's processes, with `extra` on top. */
  env(extra?: Record<string, string>): Record<string, string>;
  /** Starts `ask-user mcp --http <port> [args]` (port 0 picks a free one) and waits until it listens. */
  startHttpServer(options?: {
    port?: number;
    args?: string[];
    env?: Record<string, string>;
  }): Promise<{ child: RunningChild; url: URL }>;
  /** Starts the worker (when the stack started without one). */
  startWorker(): Promise<void>;
  /** A person answers in another process: `ask-user answer <id> --select deploy=<label> --as alice`. */
  answerFromAnotherProcess(workflowId: string, label?: string): Promise<void>;
  /** How many updates the question's workflow accepted: one per recorded answer or decline. */
  acceptedUpdates(workflowId: string): Promise<number>;
  /** Stops every process the stack and its tests started, then the worker and the dev server. */
  stop(): Promise<void>;
}

/** Starts a dev server (named `name`) and, unless told not to, a worker on the task queue `<name>-<pid>`. */
export async function startMcpStack(name: string, options: McpStackOptions = {}): Promise<McpStack> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const taskQueue = `${name}-${process.pid}`;
  const dev = await startDevServerWithClient(name);
  let worker: RunningWorkers | undefined;
  const startWorker = async (): Promise<void> => {
    worker = await startAskUserWorker(dev.server.address, taskQueue, 'default', options.worker || {});
  };
  if (options.worker !== false) await startWorker();
  const env = (extra: Record<string, string> = {}): Record<string, string> => ({
    TEMPORAL_ADDRESS: dev.server.address,
    TEMPORAL_NAMESPACE: 'default',
    ASK_USER_TASK_QUEUE: taskQueue,
    ...options.env,
    ...extra,
  });
  return {
    dev,
    taskQueue,
    env,
    startWorker,
    async startHttpServer({ port = 0, args = [], env: extra = {} } = {}) {
      const child = startChild(
        process.execPath,
        ['./bin/ask-user.js', 'mcp', '--http', String(port), ...args],
        env(extra),
      );
      const line = await child.waitForLine((text) => text.startsWith(LISTENING));
      return { child, url: new URL(line.slice(LISTENING.length)) };
    },
    async answerFromAnotherProcess(workflowId, label = 'Yes (Recommended)') {
      const answer = startChild(
        process.execPath,
        ['./bin/ask-user.js', 'answer', workflowId, '--select', `deploy=${label}`, '--as', 'alice'],
        env(),
      );
      assert.deepEqual(await answer.waitForExit(), { code: 0, signal: null }, answer.stderr());
    },
    async acceptedUpdates(workflowId) {
      const history = await dev.client.workflow.getHandle(workflowId).fetchHistory();
      return (history.events ?? []).filter((event) => event.workflowExecutionUpdateAcceptedEventAttributes)
        .length;
    },
    async stop() {
      try {
        await killChildren();
      } finally {
        await worker?.stop();
        await dev.stop();
      }
    },
  };
}
