/**
 * Schemathesis, the OpenAPI fuzzer from PyPI, for the inbox's contract test: installed on first use into a
 * virtual environment in the per-user cache (`<cache>/schemathesis-<version>`), so a second run, or another
 * clone, does not install it again. Needs `python3` with `venv`, which the Temporal CLI's install needs too.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { cacheDir } from '../../src/dev-server/ensure-temporal';
import { trackProcess } from './processes';

/** The release the contract test runs; its checks and its report format are pinned with it. */
export const SCHEMATHESIS_VERSION = '4.32.5';

/** The `st` command of the pinned release, installed when missing. Throws with pip's reason when it cannot. */
export function ensureSchemathesis(): string {
  const dir = path.join(cacheDir(), `schemathesis-${SCHEMATHESIS_VERSION}`);
  const st = path.join(dir, 'bin', 'st');
  if (fs.existsSync(st) && versionOf(st) === SCHEMATHESIS_VERSION) return st;
  const python = process.env.PYTHON ?? 'python3';
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  runOrThrow(python, ['-m', 'venv', dir], 'python3 -m venv (install python3-venv)');
  runOrThrow(
    path.join(dir, 'bin', 'python'),
    [
      '-m',
      'pip',
      'install',
      '--quiet',
      '--disable-pip-version-check',
      `schemathesis==${SCHEMATHESIS_VERSION}`,
    ],
    `pip install schemathesis==${SCHEMATHESIS_VERSION}`,
  );
  const installed = versionOf(st);
  if (installed !== SCHEMATHESIS_VERSION) {
    throw new Error(`${st} reports version ${String(installed)}, not ${SCHEMATHESIS_VERSION}`);
  }
  return st;
}

function versionOf(st: string): string | undefined {
  const result = spawnSync(st, ['--version'], { encoding: 'utf8' });
  return /version (\S+)/.exec(result.stdout ?? '')?.[1];
}

function runOrThrow(command: string, args: string[], what: string): void {
  const result = spawnSync(command, args, {
    encoding: 'utf8',
    timeout: 10 * 60_000,
    env: { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: '1', PIP_NO_INPUT: '1' },
  });
  if (result.error !== undefined || result.status !== 0) {
    const reason =
      result.error?.message ?? (result.stderr || result.stdout).trim().split('\n').slice(-3).join(' ');
    throw new Error(`Schemathesis could not be installed: ${what} failed: ${reason}`);
  }
}

/** What one `st run` printed and how it ended. */
export interface SchemathesisRun {
  exitCode: number | null;
  output: string;
}

/**
 * Runs `st <args>` in `cwd` to its end (it is stopped by its PID when the test process ends first). Schemathesis
 * reads a `schemathesis.toml` from its working directory and keeps its example cache there: an empty `cwd` gives
 * a stock run that leaves nothing in the checkout.
 */
export async function runSchemathesis(
  st: string,
  args: string[],
  timeoutMs: number,
  cwd: string,
): Promise<SchemathesisRun> {
  const child = spawn(st, args, {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', COLUMNS: '160' },
  });
  trackProcess(child, { kind: 'child' });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  try {
    const exitCode = await new Promise<number | null>((resolve) => child.once('close', resolve));
    return { exitCode, output };
  } finally {
    clearTimeout(timer);
  }
}
