/**
 * The `ask-user` CLI, run for real (`node ./bin/ask-user.js`, through tsx when dist/ is absent) against a dev
 * server: ask from a shell and wait, list, show, answer (refused, then accepted, then late), decline, usage
 * errors, and `ask-user dev` as a whole (dev server + worker) stopped cleanly by SIGINT.
 *
 * Every `ask-user` process is tracked by the shared process registry; `after()` kills what a failed or timed-out
 * test left. `ask-user dev` runs in its own process group, so killing the group takes its dev server too.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { Client } from '@temporalio/client';
import { RawValue } from '@temporalio/common';
import { msToTs } from '@temporalio/common/lib/time';
import { DefaultLogger, Runtime } from '@temporalio/worker';

import { inputSha256 } from '../../src/answer';
import { formatSummaries } from '../../src/cli/format';
import { TemporalUserInteraction } from '../../src/provider';
import type { ApprovalDecision, QuestionOutcome } from '../../src/types';
import { QuestionIndex, type QuestionIndexStatus } from '../../src/inbox';
import { ASK_USER_QUESTION_WORKFLOW_TYPE } from '../../src/question/definitions';
import {
  killChildren,
  startChild,
  type ChildExit,
  type RunningChild,
  type StartChildOptions,
} from '../fixtures/child-process';
import { waitUntilListedPending } from '../helpers/pending-questions';
import {
  freePort,
  startDevServerWithClient,
  withQuestionClient,
  type DevServerWithClient,
} from '../helpers/temporal';
import { processGroupExists } from '../helpers/processes';
import { waitFor } from '../helpers/wait';
import { startAskUserWorker, type RunningWorkers } from '../helpers/workers';

const TASK_QUEUE = `cli-${process.pid}`;

let stack: DevServerWithClient;
let worker: RunningWorkers;
/** The gRPC ports of the servers that `ask-user dev` started in the tests; checked in `after()`. */
const devPorts: number[] = [];

before(async () => {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  stack = await startDevServerWithClient('cli');
  worker = await startAskUserWorker(stack.server.address, TASK_QUEUE);
});

after(async () => {
  try {
    await killChildren();
  } finally {
    await worker?.stop();
    await stack?.stop();
  }
  // Whatever happened in the tests, nothing that `ask-user dev` started may still hold its port.
  for (const port of devPorts) {
    await waitFor(
      `nothing to accept connections on the port of ask-user dev (${port})`,
      async () => ((await acceptsConnections(port)) ? undefined : true),
      15_000,
    );
  }
});

/** Starts `ask-user <args>` against `address` (default: the test server); `after()` kills it if it still runs. */
function startCli(
  args: string[],
  address = stack.server.address,
  options: StartChildOptions = {},
): RunningChild {
  return startChild(
    process.execPath,
    ['./bin/ask-user.js', ...args],
    {
      TEMPORAL_ADDRESS: address,
      TEMPORAL_NAMESPACE: 'default',
      ASK_USER_TASK_QUEUE: TASK_QUEUE,
      USER: 'cli-tester',
    },
    options,
  );
}

interface CliResult extends ChildExit {
  stdout: string;
  stderr: string;
}

/** Runs `ask-user <args>` to the end. */
async function runCli(args: string[], address?: string): Promise<CliResult> {
  const child = startCli(args, address);
  const exit = await child.waitForExit();
  return { ...exit, stdout: child.stdout(), stderr: child.stderr() };
}

function isRunning(child: RunningChild): boolean {
  return child.process.exitCode === null && child.process.signalCode === null;
}

describe('ask-user against a running server and worker', () => {
  test('ask waits; list, show; a bad answer is refused; answer --as alice; ask prints the result; late answer refused', async () => {
    const workflowId = 'ask-user-question/cli/x';
    const ask = startCli([
      'ask',
      '--question',
      'Ship release 2.0 today?',
      '--option',
      'Yes',
      '--option',
      'No',
      '--tool-call-id',
      'x',
    ]);
    await waitUntilListedPending(stack.questions, workflowId);

    const listed = await runCli(['list']);
    assert.equal(listed.code, 0, listed.stderr);
    const lines = listed.stdout.trimEnd().split('\n');
    assert.match(lines[0] ?? '', /^ID\s+KIND\s+STATUS\s+ASKED\s+AGENT\s+QUESTION$/);
    assert.ok(
      lines.some((line) =>
        /^ask-user-question\/cli\/x\s+question\s+pending\s+\S+\s+cli\s+Ship release 2\.0 today\?$/.test(line),
      ),
      listed.stdout,
    );

    const listedJson = await runCli(['list', '--json']);
    assert.equal(listedJson.code, 0, listedJson.stderr);
    const summaries = JSON.parse(listedJson.stdout) as Record<string, unknown>[];
    const summary = summaries.find((item) => item.workflowId === workflowId);
    assert.ok(summary !== undefined, listedJson.stdout);
    const { askedAt, ...rest } = summary;
    assert.equal(typeof askedAt, 'string');
    assert.deepEqual(rest, {
      workflowId,
      title: 'Ship release 2.0 today?',
      status: 'pending',
      questionCount: 1,
      agentId: 'cli',
      toolCallId: 'x',
    });

    // `show` takes the key after `ask-user-question/` as well as the full id.
    const shown = await runCli(['show', 'cli/x']);
    assert.equal(shown.code, 0, shown.stderr);
    assert.equal(
      shown.stdout,
      [
        `${workflowId}  [pending]`,
        `asked ${String(askedAt)}`,
        'agent cli',
        'tool call x',
        '',
        '[q1] Ship release 2.0 today? (choose one)',
        '  - Yes',
        '  - No',
        '',
      ].join('\n'),
    );

    const refused = await runCli(['answer', workflowId, '--select', 'q1=Maybe']);
    assert.deepEqual(
      { code: refused.code, stdout: refused.stdout, stderr: refused.stderr },
      {
        code: 1,
        stdout: '',
        stderr:
          'ask-user: ask_user_question received an invalid answer: ' +
          'answers[0].selected: "Maybe" is not an option of question "q1"\n',
      },
    );
    const stillPending = await stack.questions.get(workflowId);
    assert.equal(stillPending.status, 'pending');
    assert.equal(stillPending.answer, undefined);
    assert.ok(isRunning(ask), 'the asking process still waits');

    const answered = await runCli(['answer', workflowId, '--select', 'q1=Yes', '--as', 'alice']);
    assert.deepEqual(
      { code: answered.code, stdout: answered.stdout, stderr: answered.stderr },
      { code: 0, stdout: `Answered ${workflowId}.\n`, stderr: '' },
    );

    assert.deepEqual(await ask.waitForExit(), { code: 0, signal: null }, ask.stderr());
    assert.equal(ask.stdout(), '{"answers":[{"id":"q1","selected":["Yes"]}]}\n');

    const record = await stack.questions.get(workflowId);
    assert.equal(record.status, 'answered');
    assert.equal(record.answeredBy, 'alice');
    assert.equal(typeof record.resolvedAt, 'string');

    const late = await runCli(['answer', workflowId, '--select', 'q1=No', '--as', 'bob']);
    assert.deepEqual(
      { code: late.code, stdout: late.stdout, stderr: late.stderr },
      {
        code: 1,
        stdout: '',
        stderr: `ask-user: the question was already answered by alice at ${String(record.resolvedAt)}\n`,
      },
    );
    assert.deepEqual((await stack.questions.get(workflowId)).answer, {
      answers: [{ id: 'q1', selected: ['Yes'] }],
    });
  });

  test('decline: the waiting ask exits 1 with the ASK_CANCELLED text and the reason', async () => {
    const workflowId = 'ask-user-question/cli/y';
    const ask = startCli([
      'ask',
      '--question',
      'Rotate the API keys now?',
      '--option',
      'Yes',
      '--option',
      'No',
      '--tool-call-id',
      'y',
    ]);
    await waitUntilListedPending(stack.questions, workflowId);

    const declined = await runCli([
      'decline',
      'cli/y',
      '--reason',
      'Release freeze until Monday',
      '--as',
      'bob',
    ]);
    assert.deepEqual(
      { code: declined.code, stdout: declined.stdout, stderr: declined.stderr },
      { code: 0, stdout: `Declined ${workflowId}.\n`, stderr: '' },
    );

    assert.deepEqual(await ask.waitForExit(), { code: 1, signal: null }, ask.stderr());
    assert.equal(ask.stdout(), '');
    assert.equal(
      ask.stderr(),
      'ask-user: Error: the user cancelled ask_user_question: Release freeze until Monday\n',
    );

    const record = await stack.questions.get(workflowId);
    assert.equal(record.status, 'declined');
    assert.equal(record.declinedBy, 'bob');
    assert.equal(record.declineReason, 'Release freeze until Monday');
  });

  test('list pages through the question index: --limit, then the --page-token it prints on stderr', async () => {
    const asks = ['page-a', 'page-b'].map((toolCallId) =>
      startCli(['ask', '--question', `Paged ${toolCallId}?`, '--tool-call-id', toolCallId]),
    );
    try {
      for (const toolCallId of ['page-a', 'page-b']) {
        await waitUntilListedPending(stack.questions, `ask-user-question/cli/${toolCallId}`);
      }
      const seen: string[] = [];
      let args = ['list', '--limit', '1', '--json'];
      // Page by page, one question each, until both asked here have been seen (others may be pending too).
      for (let page = 0; page < 50; page++) {
        const listed = await runCli(args);
        assert.equal(listed.code, 0, listed.stderr);
        const questions = JSON.parse(listed.stdout) as { workflowId: string }[];
        assert.equal(questions.length, 1, listed.stdout);
        seen.push(questions[0]!.workflowId);
        if (seen.filter((id) => id.includes('/page-')).length === 2) break;
        const more = /^more: ask-user list --status pending --page-token (\S+)\n$/.exec(listed.stderr);
        assert.ok(more !== null, `no next-page hint: ${JSON.stringify(listed.stderr)}`);
        args = ['list', '--limit', '1', '--json', '--page-token', more[1]!];
      }
      assert.equal(new Set(seen).size, seen.length, `a question came twice: ${seen.join(', ')}`);
      assert.ok(
        seen.includes('ask-user-question/cli/page-a') && seen.includes('ask-user-question/cli/page-b'),
      );
    } finally {
      await Promise.all(asks.map((ask) => ask.kill('SIGKILL')));
    }
  });

  test("list prints what the inbox's question index lists: the same rows, table, JSON and next-page hint", async () => {
    const keys = ['parity-pending', 'parity-answered', 'parity-declined', 'parity-cancelled'];
    const ids = keys.map((key) => `ask-user-question/cli/${key}`);
    const asks = keys.map((key) =>
      startCli([
        'ask',
        '--question',
        `Déployer ${key} 🚀 ?`,
        '--option',
        'Oui',
        '--option',
        'Non',
        '--tool-call-id',
        key,
      ]),
    );
    for (const workflowId of ids) await waitUntilListedPending(stack.questions, workflowId);
    await stack.questions.answer(ids[1]!, {
      answers: [{ id: 'q1', selected: ['Oui'] }],
      answeredBy: 'alice',
    });
    await stack.questions.decline(ids[2]!, { declinedBy: 'bob' });
    await stack.client.workflow.getHandle(ids[3]!).cancel();
    const index = new QuestionIndex(stack.client);
    const expected = ['pending', 'answered', 'declined', 'cancelled'];
    await waitFor(
      'visibility to show the four questions in their final states',
      async () => {
        const { questions } = await index.list({ status: 'all', pageSize: 1000 });
        const statuses = ids.map((id) => questions.find((question) => question.workflowId === id)?.status);
        return JSON.stringify(statuses) === JSON.stringify(expected) ? true : undefined;
      },
      30_000,
    );
    for (const ask of asks.slice(1)) assert.equal((await ask.waitForExit()).code, ask === asks[1] ? 0 : 1);

    const cases: { status: QuestionIndexStatus; limit: number; json: boolean }[] = [
      { status: 'all', limit: 1000, json: true },
      { status: 'all', limit: 1000, json: false },
      { status: 'answered', limit: 100, json: true },
      { status: 'pending', limit: 1, json: false },
      { status: 'all', limit: 2, json: true },
    ];
    for (const { status, limit, json } of cases) {
      const args = ['list', '--status', status, '--limit', String(limit), ...(json ? ['--json'] : [])];
      const listed = await runCli(args);
      const page = await index.list({ status, pageSize: limit });
      assert.deepEqual(
        { code: listed.code, stdout: listed.stdout, stderr: listed.stderr },
        {
          code: 0,
          stdout: `${json ? JSON.stringify(page.questions, null, 2) : formatSummaries(page.questions)}\n`,
          stderr:
            page.nextPageToken === undefined
              ? ''
              : `more: ask-user list --status ${status} --page-token ${page.nextPageToken}\n`,
        },
        args.join(' '),
      );
    }
    const table = (await runCli(['list', '--status', 'all', '--limit', '1000'])).stdout.split('\n');
    assert.ok(
      table.some((line) =>
        /^ask-user-question\/cli\/parity-answered\s+question\s+answered\s+\S+\s+cli\s+Déployer parity-answered 🚀 \?$/.test(
          line,
        ),
      ),
      table.join('\n'),
    );
    await stack.questions.decline(ids[0]!, { reason: 'test done' });
    assert.equal((await asks[0]!.waitForExit()).code, 1);
  });

  test("a memo value the default data converter cannot read fails list in the SDK's words, as it fails the index", async () => {
    // What a worker with a custom payload codec would write: an encoding the default converter does not know. In
    // a namespace of its own, so that the lists of the other tests never meet it.
    const namespace = `sealed-${process.pid}`;
    await stack.client.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: msToTs('1 day'),
    });
    const client = new Client({ connection: stack.client.connection, namespace });
    const workflowId = 'ask-user-question/cli/undecodable-memo';
    const secret = RawValue.fromPayload({
      metadata: { encoding: Buffer.from('binary/encrypted') },
      data: Buffer.from('sealed'),
    });
    // A new namespace takes a moment to reach every part of the server.
    const handle = await waitFor(
      `namespace ${namespace} to take a start`,
      () =>
        client.workflow
          .start(ASK_USER_QUESTION_WORKFLOW_TYPE, {
            workflowId,
            taskQueue: `${TASK_QUEUE}-unpolled`,
            args: [{ questions: [{ id: 'q1', question: 'Sealed?' }] }],
            memo: { title: secret },
          })
          .catch(() => undefined),
      30_000,
    );
    try {
      const index = new QuestionIndex(client);
      await waitFor(
        'the question with the sealed memo to be listed',
        async () => {
          const page = await index.list({ status: 'pending' }).catch((error: unknown) => error);
          return page instanceof Error ? page : undefined;
        },
        30_000,
      );
      await assert.rejects(index.list({ status: 'pending' }), {
        message: 'Unknown encoding: binary/encrypted',
      });
      const child = startChild(process.execPath, ['./bin/ask-user.js', 'list'], {
        TEMPORAL_ADDRESS: stack.server.address,
        TEMPORAL_NAMESPACE: namespace,
      });
      const exit = await child.waitForExit();
      assert.deepEqual(
        { code: exit.code, stdout: child.stdout(), stderr: child.stderr() },
        { code: 1, stdout: '', stderr: 'ask-user: Unknown encoding: binary/encrypted\n' },
      );
    } finally {
      await handle.terminate('test done');
    }
  });

  test('usage errors exit 2 with a one-line reason and the usage hint', async () => {
    const cases: [string[], string][] = [
      [['frobnicate'], 'ask-user: unknown command "frobnicate"'],
      [['ask'], 'ask-user: ask needs --question TEXT or --args JSON'],
      [['ask', '--args', '{not json'], 'ask-user: --args is not valid JSON: '],
      [['answer'], 'ask-user: answer needs a question id (see `ask-user list`)'],
      [['show'], 'ask-user: show needs a question id (see `ask-user list`)'],
      [['list', '--status', 'everything'], 'ask-user: --status must be pending, answered or all'],
      [['list', '--limit', '0'], 'ask-user: --limit must be a whole number from 1 to 1000'],
      [['dev', '--port', 'abc'], 'ask-user: --port must be a port number'],
      [['ask', '--question', 'Deploy?', '--frobnicate'], "ask-user: Unknown option '--frobnicate'"],
      [['show', 'cli/x', '--json=yes'], "ask-user: Option '--json' does not take an argument"],
    ];
    const results = await Promise.all(cases.map(([args]) => runCli(args)));
    for (const [index, [args, reason]] of cases.entries()) {
      const result = results[index]!;
      assert.equal(result.code, 2, `ask-user ${args.join(' ')}: ${result.stderr}`);
      assert.equal(result.stdout, '');
      const [first, second, third] = result.stderr.split('\n');
      assert.ok(first?.startsWith(reason), `ask-user ${args.join(' ')}: ${result.stderr}`);
      // A mistake in a command points at that command's help; an unknown command at the list of commands.
      const command = args[0] === 'frobnicate' ? undefined : args[0];
      assert.equal(
        second,
        command === undefined
          ? 'Run `ask-user help` for usage.'
          : `Run \`ask-user ${command} --help\` for usage.`,
      );
      assert.equal(third, '');
    }

    // No command at all: the usage text, exit 2.
    const bare = await runCli([]);
    assert.equal(bare.code, 2);
    assert.match(bare.stdout, /^Usage: ask-user <command> \[options\]/);

    // Asking for help is no mistake: the command's usage on stdout, exit 0, even with other arguments given.
    const help = await runCli(['answer', 'cli/x', '--select', 'q1=Yes', '--help']);
    assert.deepEqual(
      { code: help.code, stderr: help.stderr },
      { code: 0, stderr: '' },
      'ask-user answer ... --help',
    );
    assert.match(help.stdout, /^Usage: ask-user answer <id> \[options\]\n/);
    assert.match(help.stdout, /^ {2}--select QID=LABEL {3}/m);
  });
});

describe('approvals from the CLI', () => {
  const schema = {
    type: 'object',
    properties: { service: { type: 'string' }, replicas: { type: 'integer', minimum: 1, maximum: 10 } },
    required: ['service'],
    additionalProperties: false,
  };
  let provider: TemporalUserInteraction;

  before(() => {
    provider = new TemporalUserInteraction({ client: stack.client, taskQueue: TASK_QUEUE });
  });

  after(async () => {
    await provider?.close();
  });

  /** Asks to approve a deploy of `checkout` under `toolCallId`; resolves once it is listed pending. */
  async function pendingDeploy(
    toolCallId: string,
  ): Promise<{ workflowId: string; decision: Promise<ApprovalDecision> }> {
    const decision = provider.requestApproval({
      toolName: 'deploy',
      toolCallId,
      input: { service: 'checkout', replicas: 3 },
      description: 'Roll out checkout',
      inputSchema: schema,
      agent: { id: 'cli-agent' },
    });
    const workflowId = `ask-user-question/cli-agent/${toolCallId}`;
    await waitUntilListedPending(stack.questions, workflowId);
    return { workflowId, decision };
  }

  test('list and show mark approvals; approve --input edits, checked against the schema; a late deny names the winner', async () => {
    const { workflowId, decision } = await pendingDeploy('a1');

    const listed = await runCli(['list']);
    assert.equal(listed.code, 0, listed.stderr);
    const [header, ...rows] = listed.stdout.trimEnd().split('\n');
    assert.match(header ?? '', /^ID\s+KIND\s+STATUS\s+ASKED\s+AGENT\s+QUESTION$/);
    assert.ok(
      rows.some((row) =>
        /^ask-user-question\/cli-agent\/a1\s+approval\s+pending\s+\S+\s+cli-agent\s+Approve deploy: Roll out checkout$/.test(
          row,
        ),
      ),
      listed.stdout,
    );

    const shown = await runCli(['show', 'cli-agent/a1']);
    assert.equal(shown.code, 0, shown.stderr);
    assert.ok(
      shown.stdout.includes(
        [
          'approval of deploy',
          '  Roll out checkout',
          'input:',
          '  {',
          '    "service": "checkout",',
          '    "replicas": 3',
          '  }',
        ].join('\n'),
      ),
      shown.stdout,
    );

    const invalid = await runCli([
      'approve',
      'cli-agent/a1',
      '--input',
      '{"service":"checkout","replicas":50}',
    ]);
    assert.deepEqual(
      { code: invalid.code, stdout: invalid.stdout, stderr: invalid.stderr },
      {
        code: 1,
        stdout: '',
        stderr: 'ask-user: invalid decision: input.replicas: 50 is greater than 10\n',
      },
    );
    const notJson = await runCli(['approve', 'cli-agent/a1', '--input', '{replicas']);
    assert.equal(notJson.code, 2);
    assert.ok(notJson.stderr.startsWith('ask-user: --input is not valid JSON: '), notJson.stderr);
    assert.equal((await stack.questions.get(workflowId)).status, 'pending', 'nothing was recorded');

    const edited = await runCli([
      'approve',
      'cli-agent/a1',
      '--input',
      '{"service":"checkout","replicas":5}',
      '--as',
      'alice',
    ]);
    assert.deepEqual(
      { code: edited.code, stdout: edited.stdout, stderr: edited.stderr },
      { code: 0, stdout: `Approved ${workflowId}.\n`, stderr: '' },
    );
    const decided = await decision;
    assert.deepEqual(decided, {
      type: 'edit',
      input: { service: 'checkout', replicas: 5 },
      decidedBy: 'alice',
      decidedAt: decided.decidedAt,
      requestedInputSha256: inputSha256({ service: 'checkout', replicas: 3 }),
      inputSha256: inputSha256({ service: 'checkout', replicas: 5 }),
    });

    const late = await runCli(['deny', 'cli-agent/a1', '--reason', 'too late']);
    assert.deepEqual(
      { code: late.code, stdout: late.stdout, stderr: late.stderr },
      {
        code: 1,
        stdout: '',
        stderr: `ask-user: the approval was already approved with an edited input by alice at ${decided.decidedAt}\n`,
      },
    );

    const after = await runCli(['show', 'cli-agent/a1']);
    assert.ok(
      after.stdout.includes(
        [
          `approved with an edited input by alice at ${decided.decidedAt}:`,
          '  {',
          '    "service": "checkout",',
          '    "replicas": 5',
          '  }',
        ].join('\n'),
      ),
      after.stdout,
    );
    const listedAfter = await runCli(['list', '--status', 'all']);
    assert.match(listedAfter.stdout, /^ask-user-question\/cli-agent\/a1\s+approval\s+edited\s/m);
  });

  test('deny --reason and respond --text reach the agent; respond needs --text; a question is not decided', async () => {
    const denied = await pendingDeploy('d1');
    const deny = await runCli([
      'deny',
      'cli-agent/d1',
      '--reason',
      'Release freeze until Monday',
      '--as',
      'bob',
    ]);
    assert.deepEqual(
      { code: deny.code, stdout: deny.stdout, stderr: deny.stderr },
      { code: 0, stdout: `Denied ${denied.workflowId}.\n`, stderr: '' },
    );
    const rejection = await denied.decision;
    assert.deepEqual(rejection, {
      type: 'reject',
      reason: 'Release freeze until Monday',
      decidedBy: 'bob',
      decidedAt: rejection.decidedAt,
      requestedInputSha256: inputSha256({ service: 'checkout', replicas: 3 }),
    });

    const responded = await pendingDeploy('r1');
    const missing = await runCli(['respond', 'cli-agent/r1']);
    assert.equal(missing.code, 2);
    assert.ok(missing.stderr.startsWith('ask-user: respond needs --text TEXT\n'), missing.stderr);
    const respond = await runCli([
      'respond',
      'cli-agent/r1',
      '--text',
      'Deployed by hand already',
      '--as',
      'carol',
      '--json',
    ]);
    assert.equal(respond.code, 0, respond.stderr);
    const outcome = JSON.parse(respond.stdout) as QuestionOutcome;
    assert.equal(outcome.decision?.type, 'respond');
    assert.deepEqual(await responded.decision, outcome.decision);
    assert.deepEqual(outcome.decision, {
      type: 'respond',
      text: 'Deployed by hand already',
      decidedBy: 'carol',
      decidedAt: outcome.decision.decidedAt,
      requestedInputSha256: inputSha256({ service: 'checkout', replicas: 3 }),
    });

    const ask = startCli(['ask', '--question', 'Proceed?', '--tool-call-id', 'not-an-approval']);
    await waitUntilListedPending(stack.questions, 'ask-user-question/cli/not-an-approval');
    const wrongKind = await runCli(['approve', 'cli/not-an-approval']);
    assert.deepEqual(
      { code: wrongKind.code, stderr: wrongKind.stderr },
      {
        code: 1,
        stderr: 'ask-user: invalid arguments: decide: this is a question, not an approval: answer it\n',
      },
    );
    await runCli(['decline', 'cli/not-an-approval']);
    await ask.waitForExit();
  });
});

describe('what each command loads', () => {
  /** Runs `ask-user <args>` with a preload that records every module it required; returns those paths. */
  async function loadedModules(args: string[]): Promise<{ result: CliResult; modules: string[] }> {
    const file = path.join(stack.directory, `loaded-${args.join('-').replace(/[^\w-]/g, '_')}.json`);
    const child = startChild(
      process.execPath,
      ['--require', './test/fixtures/record-loaded-modules.js', './bin/ask-user.js', ...args],
      {
        TEMPORAL_ADDRESS: stack.server.address,
        TEMPORAL_NAMESPACE: 'default',
        ASK_USER_TASK_QUEUE: TASK_QUEUE,
        ASK_USER_LOADED_MODULES_FILE: file,
      },
    );
    const exit = await child.waitForExit();
    const modules = JSON.parse(await fs.readFile(file, 'utf8')) as string[];
    return { result: { ...exit, stdout: child.stdout(), stderr: child.stderr() }, modules };
  }

  const fromPackage = (modules: string[], name: string): string[] =>
    modules.filter((file) => file.includes(`${path.sep}node_modules${path.sep}${name}${path.sep}`));

  test('reading commands (help, <command> --help, list, show) load neither @temporalio/worker nor the dev-server launcher', async () => {
    const workflowId = 'ask-user-question/cli/loading-1';
    const ask = startCli(['ask', '--question', 'Which region?', '--tool-call-id', 'loading-1']);
    await waitUntilListedPending(stack.questions, workflowId);
    const reading = [['--help'], ['list'], ['list', '--json'], ['show', workflowId]];
    // Help, for any command, is answered before the command's module loads: `dev --help` loads no worker.
    const help = [
      ['dev', '--help'],
      ['worker', '-h'],
      ['ask', '--help'],
      ['help', 'mcp'],
    ];
    for (const args of [...reading, ...help]) {
      const { result, modules } = await loadedModules(args);
      assert.equal(result.code, 0, `ask-user ${args.join(' ')}: ${result.stderr}`);
      assert.deepEqual(fromPackage(modules, path.join('@temporalio', 'worker')), [], args.join(' '));
      assert.deepEqual(
        modules.filter((file) => file.includes(`${path.sep}dev-server${path.sep}`)),
        [],
        args.join(' '),
      );
    }
    // The recording itself works: a worker command does load the worker package.
    const dev = await loadedModules(['dev', '--port', 'abc']);
    assert.equal(dev.result.code, 2, dev.result.stderr);
    assert.notDeepEqual(fromPackage(dev.modules, path.join('@temporalio', 'worker')), []);

    await stack.questions.decline(workflowId, { reason: 'test done' });
    assert.equal((await ask.waitForExit()).code, 1);
  });

  test('list loads the client it lists through, and not the worker, its native core or zod', async () => {
    const workflowId = 'ask-user-question/cli/loading-2';
    const ask = startCli(['ask', '--question', 'Which zone?', '--tool-call-id', 'loading-2']);
    await waitUntilListedPending(stack.questions, workflowId);
    for (const args of [['list'], ['list', '--status', 'all', '--json']]) {
      const { result, modules } = await loadedModules(args);
      assert.equal(result.code, 0, `ask-user ${args.join(' ')}: ${result.stderr}`);
      assert.ok(result.stdout.includes(workflowId), result.stdout);
      // `@temporalio/workflow` is loaded: the ops client sends the question's messages by their definitions.
      const names = ['@temporalio/worker', '@temporalio/core-bridge', 'zod'];
      for (const name of names) {
        const loaded = fromPackage(modules, path.join(...name.split('/')));
        assert.deepEqual(loaded, [], `ask-user ${args.join(' ')} loads ${name}`);
      }
      // The recording itself works: what list does load from the SDK is there.
      assert.notDeepEqual(fromPackage(modules, path.join('@temporalio', 'client')), [], args.join(' '));
    }
    await stack.questions.decline(workflowId, { reason: 'test done' });
    assert.equal((await ask.waitForExit()).code, 1);
  });
});

test('a question id holding "=" is answered with --select "q=1=Yes" (the longest known id wins)', async () => {
  const workflowId = 'ask-user-question/cli/equals-1';
  const args = {
    questions: [
      { id: 'q', question: 'First?', options: [{ label: 'A' }, { label: '1=Yes' }] },
      { id: 'q=1', question: 'Deploy?', options: [{ label: 'Yes' }, { label: 'No' }] },
      { id: 'note', question: 'Anything else?' },
    ],
  };
  const ask = startCli(['ask', '--args', JSON.stringify(args), '--tool-call-id', 'equals-1']);
  await waitUntilListedPending(stack.questions, workflowId);

  const unknown = await runCli(['answer', workflowId, '--select', 'r=1=Yes']);
  assert.deepEqual(
    { code: unknown.code, stderr: unknown.stderr },
    {
      code: 2,
      stderr:
        'ask-user: --select "r=1=Yes": no question with id "r"\nRun `ask-user answer --help` for usage.\n',
    },
  );

  const answered = await runCli([
    'answer',
    workflowId,
    '--select',
    'q=1=Yes',
    '--select',
    'q=A',
    '--custom',
    'note=a=b',
  ]);
  assert.deepEqual(
    { code: answered.code, stdout: answered.stdout, stderr: answered.stderr },
    { code: 0, stdout: `Answered ${workflowId}.\n`, stderr: '' },
  );
  assert.deepEqual(await ask.waitForExit(), { code: 0, signal: null }, ask.stderr());
  assert.equal(
    ask.stdout(),
    '{"answers":[{"id":"q","selected":["A"]},{"id":"q=1","selected":["Yes"]},{"id":"note","selected":[],"custom":"a=b"}]}\n',
  );
});

/** True when something accepts TCP connections on `127.0.0.1:port`. */
function acceptsConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const done = (accepted: boolean): void => {
      socket.destroy();
      resolve(accepted);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.setTimeout(2_000, () => done(false));
  });
}

test('ask-user dev: dev server and worker on a fresh database; ask and answer through it; SIGINT stops it all', async () => {
  const port = await freePort();
  devPorts.push(port);
  const dbFile = path.join(stack.directory, 'dev', 'dev.sqlite');
  const address = `127.0.0.1:${port}`;
  // Its own process group: SIGKILL of `ask-user dev` alone would leave its dev server running, on the port.
  const dev = startCli(['dev', '--db', dbFile, '--port', String(port), '--headless'], address, {
    detached: true,
  });
  try {
    await dev.waitForLine((line) => line.startsWith('Worker'), 120_000);
    const banner = dev.stdout().split('\n');
    assert.equal(banner[0], `Temporal dev server  ${address} (data: ${dbFile})`);
    assert.equal(banner[1], `Worker               task queue ${TASK_QUEUE}`);
    await fs.access(dbFile);

    await withQuestionClient(address, async (devQuestions) => {
      const workflowId = 'ask-user-question/cli/dev-1';
      const ask = startCli(['ask', '--question', 'Name the release', '--tool-call-id', 'dev-1'], address);
      await waitUntilListedPending(devQuestions, workflowId);

      const answered = await runCli(
        ['answer', 'cli/dev-1', '--custom', 'q1=Aurora', '--as', 'dana'],
        address,
      );
      assert.equal(answered.code, 0, answered.stderr);
      assert.deepEqual(await ask.waitForExit(), { code: 0, signal: null }, ask.stderr());
      assert.equal(ask.stdout(), '{"answers":[{"id":"q1","selected":[],"custom":"Aurora"}]}\n');
    });

    assert.ok(isRunning(dev), `ask-user dev still runs:\n${dev.stdout()}${dev.stderr()}`);
    // SIGINT to `ask-user dev` alone, not its group: it must stop its dev server itself.
    const exit = await dev.kill('SIGINT');
    assert.deepEqual(exit, { code: 0, signal: null }, dev.stderr());
    // The dev server it started is gone too: nothing is left in its process group, nothing listens on its port.
    assert.equal(processGroupExists(dev.pid), false, 'a process of ask-user dev outlived it');
    assert.equal(await acceptsConnections(port), false);
  } finally {
    // A failure above must not leave the dev command or its server running: a chance to stop cleanly, then
    // SIGKILL for the whole group (a no-op when it is already gone). `after()` checks the port is free.
    if (isRunning(dev)) {
      dev.process.kill('SIGINT');
      await dev.waitForExit(15_000).catch(() => undefined);
    }
    await dev.killGroup();
  }
});

/** Starts `ask-user dev` in its own process group and waits for its banner. */
async function startDev(dbFile: string, port: number): Promise<RunningChild> {
  const dev = startCli(['dev', '--db', dbFile, '--port', String(port), '--headless'], `127.0.0.1:${port}`, {
    detached: true,
  });
  await dev.waitForLine((line) => line.startsWith('Worker'), 120_000);
  return dev;
}

/** Stops `ask-user dev` with SIGINT, as Ctrl-C does, and expects a clean exit. */
async function stopDev(dev: RunningChild): Promise<void> {
  const exit = await dev.kill('SIGINT');
  assert.deepEqual(exit, { code: 0, signal: null }, dev.stderr());
}

test('ask-user dev keeps a pending question across its own restart on the same database', async () => {
  const port = await freePort();
  devPorts.push(port);
  const dbFile = path.join(stack.directory, 'dev-restart', 'dev.sqlite');
  const address = `127.0.0.1:${port}`;
  const workflowId = 'ask-user-question/cli/dev-restart';
  let dev = await startDev(dbFile, port);
  try {
    // An agent asks, then goes away (a shell closed); the question stays.
    const ask = startCli(['ask', '--question', 'Pick a codename', '--tool-call-id', 'dev-restart'], address);
    await withQuestionClient(address, (questions) => waitUntilListedPending(questions, workflowId));
    await ask.kill('SIGKILL');

    // Ctrl-C, then `ask-user dev` again on the same file: the question is still pending.
    await stopDev(dev);
    dev = await startDev(dbFile, port);
    await withQuestionClient(address, (questions) => waitUntilListedPending(questions, workflowId));

    const answered = await runCli(['answer', 'cli/dev-restart', '--custom', 'q1=Borealis'], address);
    assert.equal(answered.code, 0, answered.stderr);
    // The agent asks again with the same tool call: it gets the stored answer at once.
    const again = await runCli(
      ['ask', '--question', 'Pick a codename', '--tool-call-id', 'dev-restart'],
      address,
    );
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout, '{"answers":[{"id":"q1","selected":[],"custom":"Borealis"}]}\n');
    await stopDev(dev);
  } finally {
    if (isRunning(dev)) {
      dev.process.kill('SIGINT');
      await dev.waitForExit(15_000).catch(() => undefined);
    }
    await dev.killGroup();
  }
});
