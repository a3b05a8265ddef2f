#!/usr/bin/env node
/**
 * Runs the test suite with Node's built-in test runner and tsx.
 *
 *   npm test                        every test/**\/*.test.ts
 *   npm test -- tool answer         only files whose path contains "tool" or "answer" (each must match one)
 *   npm test -- --test-name-pattern=expired
 *                                   arguments starting with "-" go to `node --test` as they are
 *   npm run test:cluster            (--cluster) only test/cluster/**\/*.test.ts, one file at a time
 *
 * `npm test` leaves out test/cluster/: those tests run against the production-like cluster of
 * scripts/cluster (the Temporal server built from source, on PostgreSQL), not on dev servers.
 *
 * Files are listed explicitly (recursive, sorted) because Node 20's `--test` neither expands globs nor finds
 * `.ts` files by itself.
 *
 * Concurrency is 2: several test files each start a Temporal dev server, and more in parallel starves CI.
 * The per-test timeout is generous because a cold dev server and the first workflow bundle take a while.
 * Cluster test files run one at a time, each with twice that: each starts PostgreSQL and a Temporal server of
 * four services, two such clusters at once starve two cores, and a cold cluster starts slower than a dev server.
 * `--test-force-exit` ends each test file once its tests and hooks are done: a test that timed out may still be
 * awaiting something (its `finally` never ran), and without it that file, and so the whole run, would hang. The
 * forced exit is what kills the file's leftover processes (test/helpers/processes.ts kills them on 'exit').
 *
 * Long files (LONG_TEST_FILES: the long-life test drives 57,000 messages into one question, about 3 minutes
 * on a quiet machine; the OpenAPI contract test runs Schemathesis for some 1,500 requests, about 2 minutes)
 * run after the rest, one at a time, with their own longer timeout: beside another file on two cores they
 * would starve it and blow the per-file timeout that catches a hang everywhere else.
 */
'use strict';

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const PROJECT_ROOT = path.resolve(__dirname, '..');
const TEST_ROOT = path.join(PROJECT_ROOT, 'test');
const CLUSTER_TEST_ROOT = path.join(TEST_ROOT, 'cluster');
const TEST_CONCURRENCY = 2;
const TEST_TIMEOUT_MS = 300_000;
const CLUSTER_TEST_CONCURRENCY = 1;
const CLUSTER_TEST_TIMEOUT_MS = 600_000;
/** Files that run alone, after the others, with {@link LONG_TEST_TIMEOUT_MS}. */
const LONG_TEST_FILES = /(^|\/)(long-life|inbox-openapi)\.test\.ts$/;
const LONG_TEST_TIMEOUT_MS = 1_200_000;

/**
 * Lists every `*.test.ts` under `directory`, recursively, as paths relative to the project root, sorted.
 * Under the whole test folder, test/cluster/ is left out (it runs with `--cluster` only).
 *
 * @param {string} [directory]
 * @returns {string[]}
 */
function collectTestFiles(directory = TEST_ROOT) {
  const skipped = directory === TEST_ROOT ? CLUSTER_TEST_ROOT : undefined;
  const files = [];
  const visit = (current) => {
    let entries;
    try {
      entries = fs.readdirSync(current, { withFileTypes: true });
    } catch (error) {
      if (error.code === 'ENOENT') return;
      throw error;
    }
    for (const entry of entries) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) {
        if (full !== skipped) visit(full);
      } else if (entry.isFile() && entry.name.endsWith('.test.ts')) files.push(full);
    }
  };
  visit(directory);
  return files.map((file) => path.relative(PROJECT_ROOT, file).split(path.sep).join('/')).sort();
}

/**
 * Splits the command line into file filters (matched as substrings of the file path), runner flags, and
 * `--cluster`, which is this script's own.
 *
 * @param {string[]} args
 * @returns {{ filters: string[], runnerFlags: string[], cluster: boolean }}
 */
function parseArgs(args) {
  const filters = [];
  const runnerFlags = [];
  let cluster = false;
  for (const arg of args) {
    if (arg === '--cluster') cluster = true;
    else (arg.startsWith('-') ? runnerFlags : filters).push(arg);
  }
  return { filters, runnerFlags, cluster };
}

function main() {
  const { filters, runnerFlags, cluster } = parseArgs(process.argv.slice(2));
  const root = cluster ? CLUSTER_TEST_ROOT : TEST_ROOT;
  const all = collectTestFiles(root);
  const files =
    filters.length === 0 ? all : all.filter((file) => filters.some((filter) => file.includes(filter)));

  // Every filter must match a file, so that a list of them (CI's Node 24 list) loses none to a rename unnoticed.
  const unmatched = filters.filter((filter) => !all.some((file) => file.includes(filter)));
  if (files.length === 0 || unmatched.length > 0) {
    const scope =
      unmatched.length === 0 ? '' : ` matching ${unmatched.map((filter) => `"${filter}"`).join(' or ')}`;
    const folder = path.relative(PROJECT_ROOT, root);
    console.error(`run-tests: no test files${scope} under ${folder}/ (looked for ${folder}/**/*.test.ts)`);
    process.exit(1);
  }

  const long = files.filter((file) => LONG_TEST_FILES.test(file));
  const regular = files.filter((file) => !LONG_TEST_FILES.test(file));
  const batches = [
    {
      files: regular,
      concurrency: cluster ? CLUSTER_TEST_CONCURRENCY : TEST_CONCURRENCY,
      timeoutMs: cluster ? CLUSTER_TEST_TIMEOUT_MS : TEST_TIMEOUT_MS,
    },
    { files: long, concurrency: 1, timeoutMs: LONG_TEST_TIMEOUT_MS },
  ].filter((batch) => batch.files.length > 0);
  void runBatches(batches, runnerFlags);
}

/**
 * Runs each batch in its own `node --test`, one after another; exits 1 if any failed (after running all).
 *
 * @param {{ files: string[], concurrency: number, timeoutMs: number }[]} batches
 * @param {string[]} runnerFlags
 */
async function runBatches(batches, runnerFlags) {
  let failed = false;
  for (const batch of batches) {
    const code = await runBatch(batch, runnerFlags);
    if (code !== 0) failed = true;
  }
  process.exit(failed ? 1 : 0);
}

/**
 * @param {{ files: string[], concurrency: number, timeoutMs: number }} batch
 * @param {string[]} runnerFlags
 * @returns {Promise<number>} the runner's exit code
 */
function runBatch(batch, runnerFlags) {
  const args = [
    '--import',
    'tsx',
    '--test',
    `--test-concurrency=${batch.concurrency}`,
    `--test-timeout=${batch.timeoutMs}`,
    '--test-force-exit',
    ...runnerFlags,
    ...batch.files,
  ];
  const child = spawn(process.execPath, args, { cwd: PROJECT_ROOT, stdio: 'inherit' });

  // Ctrl-C reaches the child through the terminal's process group; a plain `kill <pid>` of this runner
  // must reach it too, or the child and its dev servers outlive us.
  const forward = (signal) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);

  return new Promise((resolve) => {
    child.on('error', (error) => {
      console.error(`run-tests: could not start node: ${error.message}`);
      process.exit(1);
    });
    child.on('exit', (code, signal) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      if (signal !== null) {
        console.error(`run-tests: test runner ended by ${signal}`);
        process.exit(1);
      }
      resolve(code ?? 1);
    });
  });
}

module.exports = { collectTestFiles, parseArgs };

if (require.main === module) main();
