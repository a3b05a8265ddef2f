/**
 * Approvals of tool calls in the inbox page, in a real browser (headless Chromium through playwright-core:
 * `CHROMIUM_PATH`, else `/usr/bin/chromium`, else the one from npm `@sparticuz/chromium`; see
 * test/helpers/browser.ts) against a real dev server, worker and inbox, the agent's tool wrapped by
 * `requireApproval` in this process:
 * - an approval is marked in the live queue (badge, tool name); its view shows the tool, the description and
 *   the input as pretty JSON; JSON that does not parse is named in place and nothing is sent; the input is
 *   edited and approved, the tool runs with exactly the edited input under an `edit` decision by the logged-in
 *   name, and the history shows who, when and a line diff of the original and the edited input;
 * - an edit that breaks the tool's input schema shows the server's path and reason beside the editor and
 *   records nothing; Deny with a reason then reaches the model as the rejection text;
 * - Respond sends a text that the model reads in place of the tool's result;
 * - an approval whose tool name, description and input keys and values are HTML, script and `javascript:`
 *   payloads shows each one as text, before and after the decision, and no script runs;
 * - under a hook that runs a call only with the model's own input (the AI SDK's `toolApproval` policy,
 *   `onEdit: 'suggest'`), the editor says before the decision that an edit reaches the agent as a denial that
 *   suggests the edited input, and after it the page reports that denial, not an approval.
 * Screenshots of the queue, the approval view, the refused edit and the history's diff go to test-output/.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { BrowserContext, Locator, Page } from 'playwright-core';

import { aiToolApprovalPolicy } from '../../src/ai';
import { inputSha256 } from '../../src/answer';
import { approvalTitle } from '../../src/question/question-text';
import { requireApproval, type ApprovedExecutionContext } from '../../src/tool';
import { editedCallText } from '../../src/tool/require-approval';
import { PROJECT_ROOT } from '../fixtures/child-process';
import { startBrowserStack, type BrowserStack } from '../helpers/browser-stack';
import { waitForPendingRecord } from '../helpers/pending-questions';

Runtime.install({ logger: new DefaultLogger('WARN') });

const TASK_QUEUE = `approvals-browser-${process.pid}`;
const OUTPUT = path.join(PROJECT_ROOT, 'test-output');
const AGENT_ID = 'approval-browser-agent';

/** The deploy tool's input schema: one service at a version, on 1–10 replicas. */
const DEPLOY_SCHEMA = {
  type: 'object',
  properties: {
    service: { type: 'string', minLength: 1 },
    version: { type: 'string', pattern: '^\\d+\\.\\d+\\.\\d+$' },
    replicas: { type: 'integer', minimum: 1, maximum: 10 },
  },
  required: ['service', 'version'],
  additionalProperties: false,
};

const DEPLOY = { service: 'api', version: '1.4.2', replicas: 2 };

let web: BrowserStack;

before(async () => {
  fs.mkdirSync(OUTPUT, { recursive: true });
  web = await startBrowserStack('approvals-browser', TASK_QUEUE);
});

after(async () => {
  await web?.stop();
});

/** One run of a wrapped tool: the input it ran with and the approval it ran under. */
interface ToolRun {
  input: unknown;
  approval: ApprovedExecutionContext['approval'];
}

/** A tool call waiting for a decision in this process. */
interface PendingApproval {
  workflowId: string;
  /** What the model reads: the tool's result, the rejection text or the response. */
  result: Promise<string>;
  runs: ToolRun[];
  abort(): void;
}

let calls = 0;

/**
 * Calls a tool named `toolName`, wrapped by `requireApproval` with `options`, on `input`; resolves once its
 * approval is pending.
 */
async function requestCall(
  toolName: string,
  input: unknown,
  options: { description?: string; inputSchema?: Record<string, unknown> } = {},
): Promise<PendingApproval> {
  const toolCallId = `call-${++calls}`;
  const runs: ToolRun[] = [];
  const tool = requireApproval(
    {
      name: toolName,
      execute: async (approved: unknown, context: ApprovedExecutionContext) => {
        runs.push({ input: approved, approval: context.approval });
        return `ran ${JSON.stringify(approved)}`;
      },
    },
    { userInteraction: web.provider, ...options },
  );
  const controller = new AbortController();
  const result = tool.execute(input, { toolCallId, agent: { id: AGENT_ID }, signal: controller.signal });
  result.catch(() => undefined);
  const workflowId = `ask-user-question/${AGENT_ID}/${toolCallId}`;
  await waitForPendingRecord(web.stack.client, workflowId);
  return { workflowId, result, runs, abort: () => controller.abort() };
}

/** A deploy of {@link DEPLOY}, checked against {@link DEPLOY_SCHEMA}. */
async function requestDeploy(): Promise<PendingApproval> {
  return await requestCall('deploy', DEPLOY, {
    description: 'Deploy api 1.4.2 to production',
    inputSchema: DEPLOY_SCHEMA,
  });
}

/** A logged-in page on the live queue, in a browser context of its own. */
async function logIn(name: string): Promise<{
  context: BrowserContext;
  page: Page;
  errors: string[];
  dialogs: string[];
}> {
  const errors: string[] = [];
  const dialogs: string[] = [];
  const page = await web.logIn(name, (opened) => {
    opened.on('pageerror', (error) => errors.push(error.message));
    opened.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
  });
  assert.equal(await page.locator('#who-name').textContent(), name);
  return { context: page.context(), page, errors, dialogs };
}

function row(page: Page, workflowId: string, list = 'queue'): Locator {
  return page.locator(`#${list} li[data-workflow-id="${workflowId}"] a.row`);
}

/** Asserts that the approval is still pending with no decision, and that its tool has not run. */
async function assertUndecided(call: PendingApproval): Promise<void> {
  const record = await web.stack.questions.get(call.workflowId);
  assert.equal(record.status, 'pending');
  assert.equal(record.decision, undefined);
  assert.deepEqual(call.runs, []);
}

function pretty(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

describe('approvals in the inbox page', () => {
  test('an approval is marked in the queue, its input edited and approved; the tool runs with exactly that edit, and the history shows the diff', async () => {
    const alice = await logIn('alice');
    const call = await requestDeploy();
    try {
      // It arrives through the live queue, marked as an approval of its tool.
      const listed = row(alice.page, call.workflowId);
      await listed.waitFor();
      assert.equal(await listed.locator('.kind-badge').textContent(), 'Approval');
      assert.equal(await listed.locator('.tool-name').textContent(), 'deploy');
      assert.equal(
        await listed.locator('.title').textContent(),
        'Approve deploy: Deploy api 1.4.2 to production',
      );
      await alice.page.screenshot({ path: path.join(OUTPUT, 'approval-queue.png') });

      await listed.click();
      const form = alice.page.locator('form.approval-form');
      await form.waitFor();
      assert.equal(await alice.page.locator('#question-title').textContent(), 'Approve deploy');
      assert.equal(await alice.page.locator('#question-meta .kind-badge').textContent(), 'Approval');
      assert.equal(await alice.page.locator('#question-meta .tool-name').textContent(), 'deploy');
      assert.equal(
        await form.locator('.approval-description').textContent(),
        'Deploy api 1.4.2 to production',
      );
      assert.equal(await form.locator('pre.approval-input').textContent(), pretty(DEPLOY));
      assert.equal(await form.locator('pre.approval-schema').textContent(), pretty(DEPLOY_SCHEMA));
      const editor = form.locator('#approval-editor');
      assert.equal(await editor.inputValue(), pretty(DEPLOY));
      const approve = form.locator('#approve');
      assert.equal(await approve.textContent(), 'Approve');
      assert.equal(await form.locator('#approval-edit-note').count(), 0, 'requireApproval runs an edit');
      await alice.page.screenshot({ path: path.join(OUTPUT, 'approval-view.png'), fullPage: true });

      // JSON that does not parse is named in place, and Approve sends nothing.
      await editor.fill('{ "service": "api", "version": "1.4.2", "replicas": 3, }');
      const fieldError = form.locator('#approval-input-error');
      assert.match((await fieldError.textContent()) ?? '', /^Not valid JSON: \S/);
      assert.equal(await editor.getAttribute('aria-invalid'), 'true');
      await approve.click();
      assert.match((await fieldError.textContent()) ?? '', /^Not valid JSON: \S/);
      assert.equal(await form.locator('#form-message').textContent(), '');
      await assertUndecided(call);

      // Spacing and key order alone are no edit: Approve stays a plain approval.
      await editor.fill('{"version":"1.4.2","service":"api","replicas":2}');
      assert.equal(await fieldError.textContent(), '');
      assert.equal(await editor.getAttribute('aria-invalid'), null);
      assert.equal(await approve.textContent(), 'Approve');

      const edited = { service: 'api', version: '1.4.2', replicas: 3 };
      await editor.fill(pretty(edited));
      assert.equal(await approve.textContent(), 'Approve with edits');
      assert.equal(
        await form.locator('#approval-change').textContent(),
        'Edited: Approve runs the tool with this input instead.',
      );
      await approve.click();
      const done = alice.page.locator('#question-body > .form-message.success');
      await done.waitFor();
      assert.equal(await done.textContent(), 'Approved with the edited input as alice.');

      // The agent's tool ran once, with exactly the edited input, under the `edit` decision.
      assert.equal(await call.result, `ran ${JSON.stringify(edited)}`);
      assert.equal(call.runs.length, 1);
      assert.deepEqual(call.runs[0]!.input, edited);
      const decision = call.runs[0]!.approval?.decision;
      assert.ok(decision !== undefined && !Number.isNaN(Date.parse(decision.decidedAt)));
      assert.deepEqual(decision, {
        type: 'edit',
        input: edited,
        decidedBy: 'alice',
        decidedAt: decision.decidedAt,
        requestedInputSha256: inputSha256(DEPLOY),
        inputSha256: inputSha256(edited),
      });

      // The outcome in place, and the same from the history: who, when, and the diff.
      const expectedDiff = [
        '  {',
        '    "service": "api",',
        '    "version": "1.4.2",',
        '-   "replicas": 2',
        '+   "replicas": 3',
        '  }',
      ];
      const outcome = alice.page.locator('.approval-outcome');
      assert.equal(
        await outcome.locator('.notice').textContent(),
        `Approved with an edited input by alice at ${decision.decidedAt}.`,
      );
      assert.deepEqual(await outcome.locator('.diff-line').allTextContents(), expectedDiff);

      await alice.page.locator('#nav-history').click();
      const historical = row(alice.page, call.workflowId, 'history');
      await historical.waitFor();
      assert.equal(await historical.locator('.kind-badge').textContent(), 'Approval');
      assert.equal(await historical.locator('.outcome .status').textContent(), 'Approved with edits');
      assert.match(
        (await historical.locator('.outcome').textContent()) ?? '',
        /^Approved with edits by alice · /,
      );
      await historical.click();
      const fromHistory = alice.page.locator('.approval-outcome');
      await fromHistory.waitFor();
      assert.equal(await alice.page.locator('#question-meta .status').textContent(), 'Approved with edits');
      assert.equal(
        await fromHistory.locator('.notice').textContent(),
        `Approved with an edited input by alice at ${decision.decidedAt}.`,
      );
      assert.deepEqual(await fromHistory.locator('.diff-line').allTextContents(), expectedDiff);
      assert.deepEqual(
        await fromHistory
          .locator('.diff-line')
          .evaluateAll((lines) =>
            lines.map((line) => (line as unknown as { dataset: { kind: string } }).dataset.kind),
          ),
        ['same', 'same', 'same', 'removed', 'added', 'same'],
      );
      await alice.page.screenshot({ path: path.join(OUTPUT, 'approval-history-diff.png'), fullPage: true });
      assert.deepEqual(alice.errors, []);
      assert.deepEqual(alice.dialogs, []);
    } finally {
      call.abort();
      await alice.context.close();
    }
  });

  test("an edit that breaks the input schema shows the server's path and reason and records nothing; Deny with a reason reaches the model", async () => {
    const bob = await logIn('bob');
    const call = await requestDeploy();
    try {
      await row(bob.page, call.workflowId).click();
      const form = bob.page.locator('form.approval-form');
      await form.waitFor();
      const editor = form.locator('#approval-editor');
      await editor.fill(pretty({ ...DEPLOY, replicas: 50 }));
      // Valid JSON: only the server's schema check can refuse it.
      assert.equal(await form.locator('#approval-input-error').textContent(), '');
      await form.locator('#approve').click();
      const fieldError = form.locator('#approval-input-error');
      await fieldError.filter({ hasText: 'refused' }).waitFor();
      assert.equal(
        await fieldError.textContent(),
        'The server refused this input: input.replicas: 50 is greater than 10',
      );
      assert.equal(await editor.getAttribute('aria-invalid'), 'true');
      assert.equal(await editor.inputValue(), pretty({ ...DEPLOY, replicas: 50 }), 'the edit is kept');
      await bob.page.screenshot({ path: path.join(OUTPUT, 'approval-invalid-edit.png'), fullPage: true });
      await assertUndecided(call);

      // A missing required field, named the same way.
      await editor.fill('{"service": "api"}');
      await form.locator('#approve').click();
      await fieldError.filter({ hasText: 'version' }).waitFor();
      assert.equal(
        await fieldError.textContent(),
        'The server refused this input: input: Instance does not have required property "version"',
      );
      await assertUndecided(call);

      await form.locator('details.deny > summary').click();
      await form.locator('#deny-reason').fill('freeze until Monday');
      await form.locator('#deny').click();
      const done = bob.page.locator('#question-body > .form-message.success');
      await done.waitFor();
      assert.equal(await done.textContent(), 'Denied as bob.');
      assert.equal(await call.result, 'The user rejected this call of deploy: freeze until Monday');
      assert.deepEqual(call.runs, []);
      const record = await web.stack.questions.get(call.workflowId);
      assert.equal(record.decision?.type, 'reject');
      assert.equal(
        await bob.page.locator('.approval-outcome .notice').textContent(),
        `Denied by bob at ${record.decision?.decidedAt}: freeze until Monday`,
      );
      assert.equal(await bob.page.locator('#question-meta .status').textContent(), 'Denied');
      assert.deepEqual(bob.errors, []);
    } finally {
      call.abort();
      await bob.context.close();
    }
  });

  test("Respond sends a text the model reads in place of the tool's result; a second reviewer is told who decided", async () => {
    const carol = await logIn('carol');
    const dave = await logIn('dave');
    const call = await requestDeploy();
    try {
      await row(carol.page, call.workflowId).click();
      await row(dave.page, call.workflowId).click();
      const form = carol.page.locator('form.approval-form');
      await form.waitFor();
      await dave.page.locator('form.approval-form').waitFor();
      await form.locator('details.respond > summary').click();
      // A blank response is refused in place, before anything is sent.
      await form.locator('#respond').click();
      assert.equal(
        await form.locator('#form-message').textContent(),
        'Write the text the agent reads instead of the result.',
      );
      await assertUndecided(call);
      await form.locator('#respond-text').fill('Deploy 1.4.1 instead; 1.4.2 is bad.');
      await form.locator('#respond').click();
      const done = carol.page.locator('#question-body > .form-message.success');
      await done.waitFor();
      assert.equal(await done.textContent(), 'Response sent as carol.');
      assert.equal(await call.result, 'Deploy 1.4.1 instead; 1.4.2 is bad.');
      assert.deepEqual(call.runs, []);
      const record = await web.stack.questions.get(call.workflowId);
      const outcome = carol.page.locator('.approval-outcome');
      assert.equal(
        await outcome.locator('.notice').textContent(),
        `Answered with a response by carol at ${record.decision?.decidedAt}.`,
      );
      assert.equal(
        await outcome.locator('.response-text').textContent(),
        'Deploy 1.4.1 instead; 1.4.2 is bad.',
      );

      // Dave approves the stale view afterwards: refused in place, naming who decided and when.
      const stale = dave.page.locator('form.approval-form');
      await stale.locator('#approve').click();
      const refusal = stale.locator('#form-message.error');
      await refusal.waitFor();
      assert.equal(
        await refusal.textContent(),
        `the approval was already answered with a response by carol at ${record.resolvedAt}`,
      );
      assert.equal((await web.stack.questions.get(call.workflowId)).decision?.decidedBy, 'carol');
      assert.deepEqual([...carol.errors, ...dave.errors], []);
    } finally {
      call.abort();
      await carol.context.close();
      await dave.context.close();
    }
  });

  test('a tool name, description and input written as HTML, script and javascript: payloads show as text, and no script runs', async () => {
    const TOOL = `<img src=x onerror="window.xssRan='tool'; alert('tool')">`;
    const DESCRIPTION = `<script>window.xssRan='description'; alert('description')</script>`;
    const KEY = `<b onmouseover="window.xssRan='key'">key</b>`;
    const VALUE = `"'><svg onload="window.xssRan='svg'; alert('svg')">`;
    const LINK = `javascript:window.xssRan='link';alert('link')`;
    const CLOSING = `</pre></textarea><script>window.xssRan='pre'</script>`;
    const input = { [KEY]: VALUE, link: LINK, notes: [CLOSING, `<a href="${LINK}">click</a>`] };
    const mallory = await logIn('mallory-watch');
    const call = await requestCall(TOOL, input, { description: DESCRIPTION });
    /** Text, not markup: no element any payload would have made exists, and nothing ran. */
    const assertInert = async (): Promise<void> => {
      assert.equal(
        await mallory.page
          .locator('main img, main svg, main b, main a[href^="javascript"], main script')
          .count(),
        0,
      );
      assert.equal(await mallory.page.locator('script').count(), 1, 'only the page script');
      assert.equal(
        await mallory.page.evaluate(() => (globalThis as unknown as { xssRan?: string }).xssRan),
        undefined,
      );
      assert.deepEqual(mallory.dialogs, []);
      assert.deepEqual(mallory.errors, []);
    };
    try {
      const listed = row(mallory.page, call.workflowId);
      await listed.waitFor();
      assert.equal(await listed.locator('.tool-name').textContent(), TOOL);
      assert.equal(
        await listed.locator('.title').textContent(),
        approvalTitle({ toolName: TOOL, description: DESCRIPTION }),
      );
      await assertInert();

      await listed.click();
      const form = mallory.page.locator('form.approval-form');
      await form.waitFor();
      assert.equal(await mallory.page.locator('#question-title').textContent(), `Approve ${TOOL}`);
      assert.equal(await mallory.page.locator('#question-meta .tool-name').textContent(), TOOL);
      assert.equal(await form.locator('.approval-description').textContent(), DESCRIPTION);
      assert.equal(await form.locator('pre.approval-input').textContent(), pretty(input));
      assert.equal(await form.locator('#approval-editor').inputValue(), pretty(input));
      await mallory.page.locator('#question-title').hover();
      await form.locator('pre.approval-input').hover();
      await assertInert();

      // An edit whose new value is a payload too: the diff shows both as text.
      const edited = { ...input, link: `${LINK}//edited` };
      await form.locator('#approval-editor').fill(pretty(edited));
      await form.locator('#approve').click();
      await mallory.page.locator('#question-body > .form-message.success').waitFor();
      assert.equal(await call.result, `ran ${JSON.stringify(edited)}`);
      assert.deepEqual(call.runs[0]!.input, edited);
      const outcome = mallory.page.locator('.approval-outcome');
      assert.equal(await outcome.locator('.approval-description').textContent(), DESCRIPTION);
      const diff = await outcome.locator('.diff-line').allTextContents();
      assert.deepEqual(
        diff.filter((line) => !line.startsWith('  ')),
        [`-   "link": ${JSON.stringify(LINK)},`, `+   "link": ${JSON.stringify(`${LINK}//edited`)},`],
      );
      assert.ok(diff.includes(`    ${JSON.stringify(KEY)}: ${JSON.stringify(VALUE)},`), diff.join('\n'));
      await outcome.locator('.diff').hover();
      await assertInert();
    } finally {
      call.abort();
      await mallory.context.close();
    }
  });

  test("under a hook that runs only the model's own input, the editor says what an edit becomes, and the decision is reported as the denial the agent receives", async () => {
    const erin = await logIn('erin');
    const toolCallId = `call-${++calls}`;
    const policy = aiToolApprovalPolicy({ userInteraction: web.provider, agent: { id: AGENT_ID } });
    const status = policy({ toolCall: { toolCallId, toolName: 'deploy', input: DEPLOY } });
    const workflowId = `ask-user-question/${AGENT_ID}/${toolCallId}`;
    const effect =
      'deploy does not run: this agent runs a call only with the input its model gave, so it receives a ' +
      'denial that suggests calling deploy again with the edited input.';
    try {
      await waitForPendingRecord(web.stack.client, workflowId);
      await row(erin.page, workflowId).click();
      const form = erin.page.locator('form.approval-form');
      await form.waitFor();
      assert.equal(
        await form.locator('#approval-edit-note').textContent(),
        'This agent runs deploy only with the input its model gave: an edit reaches it as a denial that ' +
          'suggests calling again with the edited input.',
      );
      assert.equal(
        await form.locator('label[for="approval-editor"]').textContent(),
        'Input to run with (edit it to suggest other input)',
      );
      const editor = form.locator('#approval-editor');
      assert.match((await editor.getAttribute('aria-describedby')) ?? '', /\bapproval-edit-note\b/);

      const edited = { ...DEPLOY, version: '1.4.3' };
      await editor.fill(pretty(edited));
      assert.equal(await form.locator('#approve').textContent(), 'Suggest the edits');
      assert.equal(
        await form.locator('#approval-change').textContent(),
        'Edited: the agent receives a denial that suggests this input.',
      );
      await erin.page.screenshot({ path: path.join(OUTPUT, 'approval-suggested-edit.png'), fullPage: true });
      await form.locator('#approve').click();
      const done = erin.page.locator('#question-body > .form-message.success');
      await done.waitFor();
      assert.equal(await done.textContent(), `Recorded the edit as erin. ${effect}`);
      await erin.page.screenshot({
        path: path.join(OUTPUT, 'approval-suggested-outcome.png'),
        fullPage: true,
      });

      // What the page said is what the agent received.
      assert.deepEqual(await status, { type: 'denied', reason: editedCallText({ input: edited }, 'deploy') });
      const record = await web.stack.questions.get(workflowId);
      assert.equal(record.decision?.type, 'edit');
      const outcome = erin.page.locator('.approval-outcome');
      assert.equal(
        await outcome.locator('.notice').textContent(),
        `Recorded the edit by erin at ${record.decision?.decidedAt}. ${effect}`,
      );
      assert.equal(
        await erin.page.locator('#question-meta .status').textContent(),
        'Denied with a suggested input',
      );
      assert.equal(
        await outcome.locator('h2.subhead').last().textContent(),
        'Input: original (-) and suggested (+)',
      );

      // The history names it by what it became, too.
      await erin.page.locator('#nav-history').click();
      const historical = row(erin.page, workflowId, 'history');
      await historical.waitFor();
      assert.equal(
        await historical.locator('.outcome .status').textContent(),
        'Denied with a suggested input',
      );
      assert.deepEqual(erin.errors, []);
      assert.deepEqual(erin.dialogs, []);
    } finally {
      await erin.context.close();
    }
  });
});
