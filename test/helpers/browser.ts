/**
 * The Chromium that the browser tests (test/browser/) drive through playwright-core, and how it is found.
 *
 * `npm install && npm test` must work on a machine with no Chromium installed, so a system browser is a
 * shortcut, not a requirement. The lookup, first match wins:
 *   1. env `CHROMIUM_PATH`: an explicit choice; it must name an executable file, otherwise this is an error
 *      (a typo should not silently test another browser);
 *   2. `/usr/bin/chromium`, when it exists (Debian's `chromium` package; the fastest start);
 *   3. the Chromium shipped inside the devDependency `@sparticuz/chromium`: a headless-shell build packed with
 *      brotli into the npm package, so `npm install` is all it needs, no download at test time and no apt.
 * `ASK_USER_TEST_SYSTEM_CHROMIUM=0` skips 1 and 2: CI sets it so that every run proves step 3 works, even on
 * a machine that has a system Chromium.
 *
 * The packed Chromium is unpacked once per package version into the per-user cache
 * (`<cache>/sparticuz-chromium-<version>/`, `<cache>` as for the Temporal CLI: `$ASK_USER_CACHE_DIR`, else
 * `$XDG_CACHE_HOME/durable-ask-user`, else `~/.cache/durable-ask-user`), not where the package itself would
 * put it (`$TMPDIR/chromium`). The package's own spot is shared by every project on the machine and is not
 * versioned: it returns whatever `$TMPDIR/chromium` holds, so an older project's Chromium, or a file half
 * written by a process that was killed or is still unpacking, would be launched as is. Unpacking takes seconds
 * (3 to 13 s for the ~200 MB binary on a busy 2-core machine), and the two browser test files run in parallel, so here it is
 * serialised by a lock, done in a staging folder, and published by one rename: the cache folder exists only
 * once it is complete.
 */
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { chromium, type Browser } from 'playwright-core';

import { cacheDir } from '../../src/dev-server/ensure-temporal';

/** Where Debian's `chromium` package puts the browser. */
export const SYSTEM_CHROMIUM = '/usr/bin/chromium';

/** Set to `0` to skip `CHROMIUM_PATH` and {@link SYSTEM_CHROMIUM} and use the npm Chromium (CI does). */
export const SYSTEM_CHROMIUM_SWITCH = 'ASK_USER_TEST_SYSTEM_CHROMIUM';

/** Which step of the lookup found the browser. */
export type ChromiumSource = 'CHROMIUM_PATH' | 'system' | 'npm';

/** The browser the tests launch, and why this one. */
export interface ResolvedChromium {
  source: ChromiumSource;
  executablePath: string;
  /** Command-line flags for `chromium.launch({ args })`: {@link CHROMIUM_ARGS} for every source. */
  args: string[];
  /** One line for the test log: which browser, from where, and why the earlier steps did not apply. */
  description: string;
}

/**
 * The flags every Chromium here is launched with. Playwright adds `--no-sandbox` itself (`chromiumSandbox`
 * defaults to false); it is said here too because CI runs the tests as root, where Chromium's sandbox refuses
 * to start.
 *
 * Not `chromium.args` of `@sparticuz/chromium`, although its README passes them: they are tuned for AWS Lambda,
 * and break or weaken what these tests check. `--single-process` makes browser contexts share cookies (the
 * inbox test's second browser found itself signed in as the first, and never saw the login page), and
 * `--disable-web-security`, `--allow-running-insecure-content` and the disabled site isolation switch off
 * browser security that a test of the inbox's defences against script payloads should see at its defaults.
 * Its binary runs fine without any of them.
 */
const CHROMIUM_ARGS = ['--no-sandbox'];

/** How long a test waits for another process that is unpacking the npm Chromium. */
const UNPACK_LOCK_WAIT_MS = 240_000;

/** A lock folder without an owner's pid this old is left over from a process killed right after taking it. */
const OWNERLESS_LOCK_STALE_MS = 10_000;

let resolving: Promise<ResolvedChromium> | undefined;

/**
 * Finds (and, for the npm Chromium, unpacks) the browser as described at the top of this file. Memoised: every
 * call in a test process answers the same, so a test can ask which browser {@link launchBrowser} used.
 */
export function resolveChromium(): Promise<ResolvedChromium> {
  resolving ??= findChromium(process.env);
  return resolving;
}

/**
 * Launches the headless browser from {@link resolveChromium} and writes one line to the test log naming it,
 * so that a failure can be told apart by browser (system or npm) and a CI log shows which path it proved.
 */
export async function launchBrowser(): Promise<Browser> {
  const resolved = await resolveChromium();
  const browser = await chromium.launch({
    executablePath: resolved.executablePath,
    headless: true,
    args: [...resolved.args],
  });
  console.error(`browser tests: Chromium ${browser.version()}, ${resolved.description}`);
  return browser;
}

async function findChromium(env: NodeJS.ProcessEnv): Promise<ResolvedChromium> {
  const skipSystem = env[SYSTEM_CHROMIUM_SWITCH] === '0';
  const fromEnv = env.CHROMIUM_PATH;
  if (!skipSystem && fromEnv !== undefined && fromEnv !== '') {
    if (!isExecutableFile(fromEnv)) {
      throw new Error(`CHROMIUM_PATH is set to "${fromEnv}", which is not an executable file`);
    }
    return {
      source: 'CHROMIUM_PATH',
      executablePath: fromEnv,
      args: CHROMIUM_ARGS,
      description: `from CHROMIUM_PATH (${fromEnv})`,
    };
  }
  if (!skipSystem && isExecutableFile(SYSTEM_CHROMIUM)) {
    return {
      source: 'system',
      executablePath: SYSTEM_CHROMIUM,
      args: CHROMIUM_ARGS,
      description: `the system one (${SYSTEM_CHROMIUM}; CHROMIUM_PATH is not set)`,
    };
  }
  const why = skipSystem
    ? `${SYSTEM_CHROMIUM_SWITCH}=0 skips CHROMIUM_PATH and ${SYSTEM_CHROMIUM}`
    : `CHROMIUM_PATH is not set and ${SYSTEM_CHROMIUM} does not exist`;
  const npm = await npmChromium();
  return { ...npm, description: `${npm.description} (${why})` };
}

/** The Chromium inside `@sparticuz/chromium`, unpacked into the per-user cache if it is not there yet. */
async function npmChromium(): Promise<ResolvedChromium> {
  // Imported only here, so that a machine with a system Chromium never loads it.
  const { default: packaged } = await import('@sparticuz/chromium');
  const version = npmChromiumVersion();
  const parent = cacheDir();
  const target = path.join(parent, `sparticuz-chromium-${version}`);
  const executablePath = path.join(target, 'chromium');
  let unpacked = '';
  if (!isExecutableFile(executablePath)) {
    fs.mkdirSync(parent, { recursive: true });
    await withLock(`${target}.lock`, async () => {
      if (isExecutableFile(executablePath)) return; // another test process unpacked it while we waited
      const started = Date.now();
      await unpackInto(target, () => packaged.executablePath());
      unpacked = `, unpacked just now in ${((Date.now() - started) / 1000).toFixed(1)} s`;
    });
  }
  return {
    source: 'npm',
    executablePath,
    args: CHROMIUM_ARGS,
    description: `from npm @sparticuz/chromium ${version} (${executablePath}${unpacked})`,
  };
}

/** The installed version of `@sparticuz/chromium` (its `exports` do not include `package.json`). */
function npmChromiumVersion(): string {
  // <package>/build/cjs/index.cjs
  const packageRoot = path.resolve(path.dirname(require.resolve('@sparticuz/chromium')), '..', '..');
  const manifest = JSON.parse(fs.readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as {
    name?: string;
    version?: string;
  };
  if (manifest.name !== '@sparticuz/chromium' || manifest.version === undefined) {
    throw new Error(`no @sparticuz/chromium package.json in ${packageRoot}`);
  }
  return manifest.version;
}

/**
 * Unpacks the npm Chromium into `target` through a staging folder next to it, then renames that into place.
 *
 * The package always unpacks into `os.tmpdir()` (the binary, its SwiftShader libraries beside it, and fonts),
 * and has no option for another folder; `os.tmpdir()` reads `TMPDIR` on every call, so `TMPDIR` names the
 * staging folder while `unpack()` starts. The package reads it only synchronously, before its first `await`
 * (checked below: the binary must come back inside the staging folder), and nothing else runs in between.
 */
async function unpackInto(target: string, unpack: () => Promise<string>): Promise<void> {
  const staging = `${target}.partial-${process.pid}`;
  removeStagingLeftovers(target);
  fs.rmSync(staging, { recursive: true, force: true });
  fs.mkdirSync(staging);
  try {
    const previous = process.env.TMPDIR;
    process.env.TMPDIR = staging;
    let unpacking: Promise<string>;
    try {
      unpacking = unpack();
    } finally {
      if (previous === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previous;
    }
    const binary = await unpacking;
    if (path.resolve(binary) !== path.join(staging, 'chromium')) {
      throw new Error(`@sparticuz/chromium unpacked to ${binary}, not into ${staging}: has it changed?`);
    }
    fs.rmSync(target, { recursive: true, force: true }); // a folder without its binary: not usable
    fs.renameSync(staging, target);
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/** Removes staging folders of `target` left by test processes that died while unpacking. */
function removeStagingLeftovers(target: string): void {
  const prefix = `${path.basename(target)}.partial-`;
  for (const name of fs.readdirSync(path.dirname(target))) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length));
    if (Number.isInteger(pid) && pid !== process.pid && !isAlive(pid)) {
      fs.rmSync(path.join(path.dirname(target), name), { recursive: true, force: true });
    }
  }
}

/**
 * Runs `work` holding a lock shared with other processes of this user: a folder made by `mkdir` (atomic), with
 * the owner's pid in it. A lock whose owner is dead (or that has no owner after a while) is broken.
 */
async function withLock(lock: string, work: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + UNPACK_LOCK_WAIT_MS;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (isStaleLock(lock)) {
      fs.rmSync(lock, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${UNPACK_LOCK_WAIT_MS} ms waiting for ${lock} (remove it if stale)`);
    }
    await sleep(250);
  }
  try {
    fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
    await work();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

function isStaleLock(lock: string): boolean {
  try {
    const pid = Number(fs.readFileSync(path.join(lock, 'pid'), 'utf8'));
    if (!Number.isInteger(pid) || pid <= 0) return ownerlessTooLong(lock); // pid not written yet
    return !isAlive(pid);
  } catch {
    return ownerlessTooLong(lock);
  }
}

/** No owner's pid in `lock` (yet): its owner is between `mkdir` and writing it, or died there. */
function ownerlessTooLong(lock: string): boolean {
  try {
    return Date.now() - fs.statSync(lock).mtimeMs > OWNERLESS_LOCK_STALE_MS;
  } catch {
    return true; // gone already
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isExecutableFile(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
