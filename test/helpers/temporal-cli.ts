/**
 * The stock Temporal CLI (`temporal workflow query`, `signal`, `update execute`, ...) run against a test
 * server: what an ops team with only the CLI can do, no package code on its side. The binary is the one
 * `npm test` made sure of (scripts/ensure-temporal.js).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

import { findTemporalCli } from '../../src/dev-server';

const run = promisify(execFile);

/**
 * Runs `temporal <args> --address <address> --namespace <namespace>` and resolves with its stdout. Rejects on
 * an exit code other than 0 with `execFile`'s error, which carries the `code`, `stdout` and `stderr`.
 */
export async function runTemporalCli(
  args: readonly string[],
  server: { address: string; namespace?: string },
): Promise<string> {
  const binary = findTemporalCli();
  assert.ok(
    binary !== undefined,
    'a Temporal CLI binary is installed (npm test runs scripts/ensure-temporal.js)',
  );
  const { stdout } = await run(binary, [
    ...args,
    '--address',
    server.address,
    '--namespace',
    server.namespace ?? 'default',
  ]);
  return stdout;
}
