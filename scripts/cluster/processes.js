/**
 * The cluster's long-running processes (PostgreSQL, the Temporal server) and its one-shot commands (initdb,
 * temporal-sql-tool, the Temporal CLI). A long-running process is started directly, never through a shell or
 * `runuser`, so the pid held is the server's own: stopping it signals that pid and waits for it to exit.
 *
 * Each leads a process group of its own, so that Ctrl-C in a terminal reaches only whoever started it, which
 * then stops the server before the database it writes to, instead of both at once.
 */
'use strict';

const { execFile, spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { setTimeout: sleep } = require('node:timers/promises');

/** How much of a process's output is kept in memory for error messages (the whole output is in its log). */
const OUTPUT_TAIL_BYTES = 64 * 1024;
/** What an error message quotes of it: the last lines, each cut short (a server's JSON lines carry stacks). */
const QUOTED_LINES = 8;
const QUOTED_LINE_CHARS = 600;

/** The last lines of `text`, each at most {@link QUOTED_LINE_CHARS} characters long. */
function lastLines(text) {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(-QUOTED_LINES)
    .map((line) => (line.length > QUOTED_LINE_CHARS ? `${line.slice(0, QUOTED_LINE_CHARS)} ...` : line))
    .join('\n');
}

/**
 * @typedef {{ code: number | null, signal: NodeJS.Signals | null }} Exit
 *
 * @typedef {object} ManagedProcess
 * @property {string} name
 * @property {import('node:child_process').ChildProcess} child
 * @property {number} pid
 * @property {string} logFile
 * @property {Promise<Exit>} exited  settles when the process has exited
 * @property {() => boolean} isRunning
 * @property {() => string} outputTail  the last lines it printed, each cut short
 * @property {(signal: NodeJS.Signals, graceMs: number) => Promise<Exit>} stop
 *   sends `signal` to the pid, then SIGKILL if it still runs after `graceMs`; resolves once it has exited
 */

/**
 * Starts `command` with its output appended to `logFile`.
 *
 * @param {string} name  what the process is, for messages
 * @param {string} command
 * @param {string[]} args
 * @param {{ env?: NodeJS.ProcessEnv, uid?: number, gid?: number, logFile: string,
 *   onSpawn?: (child: import('node:child_process').ChildProcess) => void }} options
 * @returns {ManagedProcess}
 */
function startProcess(name, command, args, options) {
  fs.mkdirSync(path.dirname(options.logFile), { recursive: true });
  const log = fs.createWriteStream(options.logFile, { flags: 'a' });
  log.write(`\n--- ${new Date().toISOString()} ${command} ${args.join(' ')}\n`);
  const child = spawn(command, args, {
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
    ...(options.uid === undefined ? {} : { uid: options.uid }),
    ...(options.gid === undefined ? {} : { gid: options.gid }),
  });
  let tail = '';
  const record = (chunk) => {
    log.write(chunk);
    tail = (tail + chunk.toString('utf8')).slice(-OUTPUT_TAIL_BYTES);
  };
  child.stdout.on('data', record);
  child.stderr.on('data', record);

  let spawnError;
  const exited = new Promise((resolve) => {
    child.once('error', (error) => {
      spawnError = error;
      resolve({ code: null, signal: null });
    });
    child.once('close', (code, signal) => {
      log.end();
      resolve({ code, signal });
    });
  });
  if (child.pid === undefined) {
    // `spawn` reports a missing binary asynchronously; the caller learns of it from `exited` and the tail.
    tail = `could not start ${command}`;
  } else {
    options.onSpawn?.(child);
  }
  const isRunning = () => spawnError === undefined && child.exitCode === null && child.signalCode === null;

  return {
    name,
    child,
    pid: child.pid ?? -1,
    logFile: options.logFile,
    exited,
    isRunning,
    outputTail: () => lastLines(spawnError === undefined ? tail : `${tail}\n${spawnError.message}`),
    async stop(signal, graceMs) {
      if (isRunning()) child.kill(signal);
      const timer = setTimeout(() => {
        if (isRunning()) child.kill('SIGKILL');
      }, graceMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/**
 * Describes how a process ended, for messages: `exited with code 1` or `was killed by SIGKILL`.
 *
 * @param {Exit} exit
 */
function describeExit(exit) {
  return exit.signal === null ? `exited with code ${exit.code}` : `was killed by ${exit.signal}`;
}

/**
 * Runs a one-shot command to its end. Rejects with an error naming the command, how it ended and its output.
 *
 * @param {string} command
 * @param {string[]} args
 * @param {{ env?: NodeJS.ProcessEnv, cwd?: string, uid?: number, gid?: number, timeoutMs?: number }} [options]
 * @returns {Promise<{ stdout: string, stderr: string }>}
 */
function run(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      {
        env: options.env ?? process.env,
        ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
        timeout: options.timeoutMs ?? 120_000,
        maxBuffer: 64 * 1024 * 1024,
        ...(options.uid === undefined ? {} : { uid: options.uid }),
        ...(options.gid === undefined ? {} : { gid: options.gid }),
      },
      (error, stdout, stderr) => {
        if (error === null) return resolve({ stdout, stderr });
        const how = typeof error.code === 'number' ? `exited with code ${error.code}` : error.message;
        const output = `${stdout}${stderr}`.trim();
        const failure = new Error(
          `${path.basename(command)} ${args.join(' ')} ${how}${output === '' ? '' : `:\n${output}`}`,
        );
        Object.assign(failure, { stdout, stderr });
        reject(failure);
      },
    );
  });
}

/**
 * Runs `command args` every `intervalMs` until it exits 0: until `process` does `what`. Fails after `timeoutMs`,
 * or at once when `process` exits meanwhile; both messages name the process, what it did not do, and its last
 * output. A process that never became ready is SIGKILLed before the failure is thrown, so nothing half-started
 * is left running.
 *
 * @param {string} what  what the process is awaited to do: "accept connections on 127.0.0.1:5432"
 * @param {string} command
 * @param {string[]} args
 * @param {{ timeoutMs: number, intervalMs: number, probeTimeoutMs?: number, process: ManagedProcess }} options
 */
async function waitUntilReady(what, command, args, options) {
  const probe = () =>
    run(
      command,
      args,
      options.probeTimeoutMs === undefined ? {} : { timeoutMs: options.probeTimeoutMs },
    ).then(
      () => true,
      () => false,
    );
  try {
    await waitUntil(what, probe, options);
  } catch (error) {
    await options.process.stop('SIGKILL', 0);
    throw error;
  }
}

/**
 * Polls `probe` every `intervalMs` until it returns true; see {@link waitUntilReady}.
 *
 * @param {string} what
 * @param {() => Promise<boolean>} probe
 * @param {{ timeoutMs: number, intervalMs: number, process: ManagedProcess }} options
 */
async function waitUntil(what, probe, options) {
  const deadline = Date.now() + options.timeoutMs;
  const { process: watched } = options;
  for (;;) {
    if (!watched.isRunning()) {
      const exit = await watched.exited;
      throw new Error(
        `${watched.name} ${describeExit(exit)} before it could ${what}; its log (${watched.logFile}) ends:\n${watched.outputTail()}`,
      );
    }
    if (await probe()) return;
    if (Date.now() > deadline) {
      throw new Error(
        `${watched.name} did not ${what} within ${Math.round(options.timeoutMs / 1000)} s; its log (${watched.logFile}) ends:\n${watched.outputTail()}`,
      );
    }
    await sleep(options.intervalMs);
  }
}

module.exports = { describeExit, run, startProcess, waitUntilReady };
