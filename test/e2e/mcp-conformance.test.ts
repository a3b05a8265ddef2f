/**
 * The stock MCP conformance suite (`@modelcontextprotocol/conformance`, which needs Node 22+) against
 * `ask-user mcp --http`, run through `npx --prefer-offline` (the npm cache, else the registry) under the Node 24
 * of `scripts/ensure-node.js`. None of these scenarios asks a question, so the server needs no Temporal.
 *
 * Two releases of the suite: 0.1.16, the last stable one, and 0.2.0-alpha.12, the first with the 2026-07-28
 * requirement set (stateless requests, header validation). docs/adapters.md ("HTTP") says what each finds.
 *
 * `server-sse-polling` (both releases) ends with warnings that no honest change to this server removes, and
 * this test pins them so that a change in either is seen:
 * - 0.1.16 only: its session negotiates 2025-11-25, but its `tools/call` says `MCP-Protocol-Version:
 *   2025-03-26`, a version whose clients may not take the empty data of a priming event; the spec has a server
 *   respond by that header's version, and the SDK's transport sends no priming event (nor its `retry` field) on
 *   that stream, by a private check no option changes. 0.2.0-alpha.12 sends the negotiated version, and gets
 *   both;
 * - both: it calls `test_reconnection`, a tool of the conformance suite's own test server: here it is an
 *   unknown tool (the JSON-RPC error -32602, no `result`), so no result comes after the reconnection either.
 * The 2026-07-28 scenarios likewise probe some requirements through diagnostic tools of the suite's own test
 * server (`test_missing_capability`, `test_streaming_elicitation`, `test_logging_tool`); the suite reports each
 * as a FAILURE that says "Not testable", and this test pins exactly those.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { PROJECT_ROOT, killChildren, startChild } from '../fixtures/child-process';

const STABLE = '@modelcontextprotocol/conformance@0.1.16';
const MODERN = '@modelcontextprotocol/conformance@0.2.0-alpha.12';

let url: string;
let binDir: string;
let outDir: string;

before(async () => {
  // A `node` of version 24 first on PATH: the suite's bin is `#!/usr/bin/env node`.
  const node24 = execFileSync(process.execPath, ['scripts/ensure-node.js', '24'], { cwd: PROJECT_ROOT })
    .toString()
    .trim();
  binDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-conformance-bin-'));
  fs.symlinkSync(node24, path.join(binDir, 'node'));
  outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-conformance-out-'));
  const server = startChild(process.execPath, ['./bin/ask-user.js', 'mcp', '--http', '0'], {
    TEMPORAL_ADDRESS: '127.0.0.1:1',
  });
  const line = await server.waitForLine((text) => text.startsWith('ask-user mcp: streamable HTTP on '));
  url = line.slice('ask-user mcp: streamable HTTP on '.length);
});

after(async () => {
  await killChildren();
  fs.rmSync(binDir, { recursive: true, force: true });
  fs.rmSync(outDir, { recursive: true, force: true });
});

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO';
  errorMessage?: string;
}

/** Runs one scenario of the suite `release` and returns its checks (from the suite's own results file). */
async function runScenario(scenario: string, release = STABLE): Promise<Check[]> {
  const npxCli = path.join(
    path.dirname(process.execPath),
    '..',
    'lib',
    'node_modules',
    'npm',
    'bin',
    'npx-cli.js',
  );
  const dir = path.join(outDir, `${release.slice(release.lastIndexOf('@') + 1)}-${scenario}`);
  const run = startChild(
    path.join(binDir, 'node'),
    [npxCli, '--yes', '--prefer-offline', release, 'server', '--url', url, '--scenario', scenario, '-o', dir],
    { PATH: `${binDir}${path.delimiter}${process.env.PATH ?? ''}` },
  );
  const exit = await run.waitForExit(120_000);
  const [results] = fs.readdirSync(dir);
  assert.ok(
    results !== undefined,
    `no results of ${scenario} (exit ${JSON.stringify(exit)}):\n${run.stderr()}`,
  );
  return JSON.parse(fs.readFileSync(path.join(dir, results, 'checks.json'), 'utf8')) as Check[];
}

/** The checks of each status but INFO, as `status id` lines. */
function outcome(checks: Check[]): string[] {
  return checks.filter((check) => check.status !== 'INFO').map((check) => `${check.status} ${check.id}`);
}

for (const [scenario, expected] of [
  ['server-initialize', ['SUCCESS server-initialize']],
  ['ping', ['SUCCESS ping']],
  ['tools-list', ['SUCCESS tools-list']],
  [
    'dns-rebinding-protection',
    ['SUCCESS localhost-host-rebinding-rejected', 'SUCCESS localhost-host-valid-accepted'],
  ],
] as const) {
  test(`${scenario} passes with no warning`, async () => {
    assert.deepEqual(outcome(await runScenario(scenario)), expected);
  });
}

test('server-sse-polling: no failure; the warnings are the three the module comment explains', async () => {
  assert.deepEqual(outcome(await runScenario('server-sse-polling')), [
    'WARNING server-sse-priming-event',
    'WARNING server-sse-retry-field',
    'WARNING server-sse-disconnect-resume',
  ]);
});

test('0.2.0-alpha.12, server-sse-polling: the priming event and its retry field come; the fixture tool does not', async () => {
  assert.deepEqual(outcome(await runScenario('server-sse-polling', MODERN)), [
    'SUCCESS server-sse-priming-event',
    'SUCCESS server-sse-retry-field',
    'WARNING server-sse-disconnect-resume',
  ]);
});

/** The checks that are not INFO, SUCCESS or SKIPPED, as `status id` lines, each with its message. */
function notPassed(checks: Check[]): string[] {
  return checks
    .filter((check) => !['INFO', 'SUCCESS', 'SKIPPED'].includes(check.status))
    .map((check) => `${check.status} ${check.id}: ${check.errorMessage ?? ''}`);
}

for (const scenario of ['http-header-validation', 'server-sse-multiple-streams', 'tools-list', 'ping']) {
  test(`0.2.0-alpha.12, ${scenario}: every check passes`, async () => {
    const checks = await runScenario(scenario, MODERN);
    assert.deepEqual(notPassed(checks), []);
    assert.ok(checks.some((check) => check.status === 'SUCCESS'));
  });
}

test('0.2.0-alpha.12, server-stateless (2026-07-28): every check passes but those the suite cannot test here', async () => {
  const checks = await runScenario('server-stateless', MODERN);
  const failed = notPassed(checks);
  assert.deepEqual(
    failed.map((line) => line.slice(0, line.indexOf(':'))),
    [
      'FAILURE sep-2575-server-rejects-undeclared-capability',
      'FAILURE sep-2575-missing-capability-http-400',
      'FAILURE sep-2575-http-server-no-independent-requests-on-stream',
      'FAILURE sep-2575-server-no-log-without-loglevel',
    ],
  );
  for (const line of failed)
    assert.match(line, /: Not testable: server does not list the diagnostic tool 'test_/);
  const passed = new Set(checks.filter((check) => check.status === 'SUCCESS').map((check) => check.id));
  for (const id of [
    'sep-2575-server-implements-discover',
    'sep-2575-http-server-unsupported-version-400',
    'sep-2575-http-server-header-mismatch-400',
    'sep-2575-request-meta-invalid-missing-protocol-version',
    'sep-2575-http-server-method-not-found-404-initialize',
  ]) {
    assert.ok(passed.has(id), id);
  }
});
