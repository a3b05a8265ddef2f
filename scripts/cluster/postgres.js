/**
 * PostgreSQL from Debian's `postgresql` package, run the way the compose stack's `postgres` image runs it: a
 * superuser with the compose file's user name and password, password (scram-sha-256) logins over TCP, and
 * `pg_isready` as the readiness check. It listens on 127.0.0.1 only, on the cluster's port, with no Unix
 * socket (nothing here uses one, and the socket path would depend on the data folder's length).
 *
 * PostgreSQL refuses to run as root: as root, every PostgreSQL process runs as the `postgres` system user the
 * package creates (the data folder is owned by it); as anyone else, as that user.
 */
'use strict';

const { createHash } = require('node:crypto');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { HOST } = require('./ports');
const { run, startProcess, waitUntilReady } = require('./processes');

/** Debian installs each major version's server binaries in its own folder here. */
const DEBIAN_POSTGRES_ROOT = '/usr/lib/postgresql';
const READY_TIMEOUT_MS = 30_000;
/** SIGINT is PostgreSQL's "fast" shutdown: clients (the Temporal server) are disconnected instead of awaited. */
const STOP_SIGNAL = 'SIGINT';
const STOP_GRACE_MS = 30_000;

/**
 * The newest PostgreSQL server under /usr/lib/postgresql/<major>/bin.
 *
 * @returns {{ binDir: string, major: string }}
 */
function findPostgres() {
  let majors = [];
  try {
    majors = fs.readdirSync(DEBIAN_POSTGRES_ROOT).filter((name) => /^\d+$/.test(name));
  } catch (error) {
    if (error.code !== 'ENOENT') throw error;
  }
  majors.sort((a, b) => Number(b) - Number(a));
  for (const major of majors) {
    const binDir = path.join(DEBIAN_POSTGRES_ROOT, major, 'bin');
    if (fs.existsSync(path.join(binDir, 'postgres')) && fs.existsSync(path.join(binDir, 'initdb'))) {
      return { binDir, major };
    }
  }
  throw new Error(
    `no PostgreSQL server found: looked for ${DEBIAN_POSTGRES_ROOT}/*/bin/postgres; ` +
      "install Debian's package with `apt-get install -y postgresql`",
  );
}

/**
 * Who PostgreSQL runs as: `{}` (this user) unless this process is root, else the `postgres` system user.
 *
 * @returns {{ uid?: number, gid?: number, name: string }}
 */
function postgresAccount() {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return { name: os.userInfo().username };
  try {
    const id = (flag) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
    return { uid: id('-u'), gid: id('-g'), name: 'postgres' };
  } catch {
    throw new Error(
      'PostgreSQL refuses to run as root, and there is no postgres user to run it as: ' +
        "install Debian's package with `apt-get install -y postgresql` (it creates that user), or run as another user",
    );
  }
}

/** Runs `command` as the account, so that what it creates belongs to it. */
function asAccount(account) {
  return account.uid === undefined ? {} : { uid: account.uid, gid: account.gid };
}

/**
 * Creates the database cluster in `pgdata` unless one is there, with `user` as its superuser. Returns whether
 * it created one.
 *
 * @param {{ pgdata: string, user: string, password: string, postgres: { binDir: string, major: string },
 *   account: { uid?: number, gid?: number, name: string } }} options
 */
async function initPostgres(options) {
  const { pgdata, account, postgres } = options;
  const versionFile = path.join(pgdata, 'PG_VERSION');
  if (fs.existsSync(versionFile)) {
    const existing = fs.readFileSync(versionFile, 'utf8').trim();
    if (existing !== postgres.major) {
      throw new Error(
        `${pgdata} holds a PostgreSQL ${existing} database, and the server found is PostgreSQL ${postgres.major}: ` +
          'remove the folder to start afresh (its questions are lost) or install PostgreSQL ' +
          existing,
      );
    }
    return false;
  }
  // Only the data folder itself is private; the folders above it must stay searchable by the account.
  fs.mkdirSync(path.dirname(pgdata), { recursive: true });
  // An empty one is what a failed initdb leaves (it cleans up after itself); initdb refuses any other.
  if (!fs.existsSync(pgdata)) fs.mkdirSync(pgdata, { mode: 0o700 });
  if (account.uid !== undefined) fs.chownSync(pgdata, account.uid, account.gid ?? account.uid);
  // initdb reads the password from a file only its account can read, never from the command line.
  const secretDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ask-user-cluster-'));
  const passwordFile = path.join(secretDir, 'password');
  try {
    fs.writeFileSync(passwordFile, `${options.password}\n`, { mode: 0o600 });
    if (account.uid !== undefined) {
      fs.chownSync(secretDir, account.uid, account.gid ?? account.uid);
      fs.chownSync(passwordFile, account.uid, account.gid ?? account.uid);
    }
    await run(
      path.join(postgres.binDir, 'initdb'),
      [
        '--pgdata',
        pgdata,
        '--username',
        options.user,
        `--pwfile=${passwordFile}`,
        '--auth-local=trust',
        '--auth-host=scram-sha-256',
        '--encoding=UTF8',
        '--locale=C',
      ],
      { ...asAccount(account), cwd: secretDir },
    ).catch((error) => {
      throw new Error(`initdb of ${pgdata}, as user ${account.name}, failed: ${error.message}`, {
        cause: error,
      });
    });
  } finally {
    fs.rmSync(secretDir, { recursive: true, force: true });
  }
  return true;
}

/**
 * Where PostgreSQL keeps its database for the cluster in `dataDir`: `<dataDir>/postgres`, unless the account
 * PostgreSQL runs as cannot reach `dataDir` (every folder above it must be searchable by that user, and a
 * checkout under /root is not when running as root). Then a folder of the system's temporary directory named
 * after `dataDir`, so that starting again on the same data folder finds the same database.
 *
 * @param {string} dataDir
 * @param {{ uid?: number, name: string }} account
 * @returns {Promise<{ pgdata: string, reason?: string }>}
 */
async function postgresDataFolder(dataDir, account) {
  const inside = path.join(dataDir, 'postgres');
  if (account.uid === undefined) return { pgdata: inside };
  const reachable = await run('test', ['-x', dataDir], asAccount(account)).then(
    () => true,
    () => false,
  );
  if (reachable) return { pgdata: inside };
  const key = createHash('sha256').update(dataDir).digest('hex').slice(0, 16);
  return {
    pgdata: path.join(os.tmpdir(), `durable-ask-user-postgres-${key}`),
    reason: `the ${account.name} user, which PostgreSQL runs as, cannot reach ${dataDir}`,
  };
}

/**
 * Starts PostgreSQL on `pgdata` and resolves once `pg_isready` says it accepts connections.
 *
 * @param {{ pgdata: string, port: number, user: string, postgres: { binDir: string, major: string },
 *   account: { uid?: number, gid?: number, name: string }, logFile: string,
 *   onSpawn?: (child: import('node:child_process').ChildProcess) => void }} options
 * @returns {Promise<import('./processes').ManagedProcess>}
 */
async function startPostgres(options) {
  const { postgres, port } = options;
  const server = startProcess(
    'postgres',
    path.join(postgres.binDir, 'postgres'),
    [
      '-D',
      options.pgdata,
      '-p',
      String(port),
      '-c',
      `listen_addresses=${HOST}`,
      '-c',
      'unix_socket_directories=',
    ],
    {
      ...asAccount(options.account),
      logFile: options.logFile,
      ...(options.onSpawn ? { onSpawn: options.onSpawn } : {}),
    },
  );
  const isReady = path.join(postgres.binDir, 'pg_isready');
  await waitUntilReady(
    `accept connections on ${HOST}:${port}`,
    isReady,
    ['--host', HOST, '--port', String(port), '--username', options.user, '--dbname', 'postgres'],
    { timeoutMs: READY_TIMEOUT_MS, intervalMs: 250, process: server },
  );
  return server;
}

/** Stops PostgreSQL by its pid: a fast shutdown, then SIGKILL if it is still running after 30 s. */
async function stopPostgres(server) {
  return await server.stop(STOP_SIGNAL, STOP_GRACE_MS);
}

module.exports = {
  postgresDataFolder,
  findPostgres,
  initPostgres,
  postgresAccount,
  startPostgres,
  stopPostgres,
};
