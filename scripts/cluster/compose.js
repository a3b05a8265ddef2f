/**
 * What `npm run cluster` takes from docker-compose.yml, so that the local cluster and the container stack have
 * one source for every version, credential and setup step: the Temporal server version, the database user and
 * password, the server's environment, the `temporal-sql-tool` steps of the `temporal-schema` service and the
 * namespace of the `temporal-namespace` service.
 *
 * Values are read with compose's defaults (`${NAME:-default}`), as `docker compose` resolves them with nothing
 * set in the environment or an `.env` file; overrides from the environment are not read.
 */
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const { parse } = require('yaml');

const COMPOSE_FILE = path.resolve(__dirname, '..', '..', 'docker-compose.yml');

/**
 * Resolves compose interpolation with an empty environment: `${NAME:-default}` and `${NAME-default}` become
 * the default, `${NAME}` the empty string, `$$` a literal `$`.
 *
 * @param {string} value
 * @returns {string}
 */
function interpolate(value) {
  return value
    .replace(/\$\{(\w+)(?::?-([^}]*))?\}/g, (_match, _name, fallback) => fallback ?? '')
    .replace(/\$\$/g, '$');
}

/**
 * Splits one line of the compose file's shell scripts into words: whitespace-separated, double or single
 * quotes kept together and removed. Enough for the simple commands those scripts hold (no escapes, no `$(...)`).
 *
 * @param {string} line
 * @returns {string[]}
 */
function shellWords(line) {
  const words = [];
  for (const match of line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) {
    words.push(match[1] ?? match[2] ?? match[3] ?? '');
  }
  return words;
}

/** A failure to read docker-compose.yml the way this module expects, naming what is missing. */
class ComposeShapeError extends Error {
  /** @param {string} what */
  constructor(what) {
    super(`docker-compose.yml: ${what} (scripts/cluster/compose.js reads it to run the same stack)`);
    this.name = 'ComposeShapeError';
  }
}

/**
 * @param {Record<string, any>} services
 * @param {string} name
 */
function service(services, name) {
  const found = services[name];
  if (found === undefined || found === null) throw new ComposeShapeError(`no service ${name}`);
  return found;
}

/**
 * @param {Record<string, any>} definition
 * @returns {Record<string, string>}
 */
function environmentOf(definition) {
  return Object.fromEntries(
    Object.entries(definition.environment ?? {}).map(([key, value]) => [key, interpolate(String(value))]),
  );
}

/** @param {Record<string, any>} definition */
function scriptOf(definition) {
  const command = Array.isArray(definition.command) ? definition.command.join('\n') : definition.command;
  return interpolate(String(command ?? ''));
}

/** The image tag of `image: name:${VAR:-tag}`. */
function imageTag(definition, serviceName) {
  const image = interpolate(String(definition.image ?? ''));
  const tag = image.split(':')[1];
  if (tag === undefined || tag === '')
    throw new ComposeShapeError(`service ${serviceName} pins no image tag`);
  return tag;
}

/**
 * One `sql --db "$database" ...` line of the `temporal-schema` script: the subcommand and its flags, whether a
 * failure is tolerated (`|| echo ...`, for a database or version table that already exists), and the schema
 * directory it names (with `$store` in it), if any.
 *
 * @typedef {{ args: string[], tolerated: boolean }} SchemaStep
 */

/**
 * The `temporal-schema` service's script, read into what `scripts/cluster/schema.js` runs: the shared
 * `temporal-sql-tool` flags of its `sql()` function, the stores it loops over and the steps it runs for each.
 *
 * @param {string} script
 */
function parseSchemaScript(script) {
  const sqlFunction = /sql\(\)\s*\{\s*temporal-sql-tool\s+(.*?)\s*"\$@";\s*\}/.exec(script);
  if (sqlFunction === null) {
    throw new ComposeShapeError('the temporal-schema command has no `sql() { temporal-sql-tool ... "$@"; }`');
  }
  const loop = /for store in ([^;]+); do/.exec(script);
  if (loop === null) throw new ComposeShapeError('the temporal-schema command has no `for store in ...; do`');
  /** @type {SchemaStep[]} */
  const steps = [];
  for (const line of script.split('\n')) {
    const trimmed = line.trim();
    if (!trimmed.startsWith('sql --db "$database" ')) continue;
    const [command = '', fallback] = trimmed.split('||');
    steps.push({ args: shellWords(command).slice(3), tolerated: fallback !== undefined });
  }
  if (steps.length === 0)
    throw new ComposeShapeError('the temporal-schema command runs no `sql --db "$database"`');
  return {
    sqlToolFlags: shellWords(sqlFunction[1] ?? ''),
    stores: (loop[1] ?? '').trim().split(/\s+/),
    steps,
  };
}

/**
 * The database each store's schema goes to, as the script maps it: `temporal`, and `temporal_visibility` for
 * the `visibility` store.
 *
 * @param {string} script
 * @returns {(store: string) => string}
 */
function parseDatabaseOfStore(script) {
  const mapping = /database=(\w+); \[ "\$store" = (\w+) \] && database=(\w+)/.exec(script);
  if (mapping === null)
    throw new ComposeShapeError('the temporal-schema command does not map stores to databases');
  const [, fallback = '', special = '', specialDatabase = ''] = mapping;
  return (store) => (store === special ? specialDatabase : fallback);
}

/** Where the server image reads its dynamic config file. */
const IMAGE_DYNAMIC_CONFIG = '/etc/temporal/config/dynamicconfig/docker.yaml';

/** The host file the `temporal` service mounts at {@link IMAGE_DYNAMIC_CONFIG}, resolved from the compose file. */
function dynamicConfigFileOf(temporal, file) {
  for (const volume of temporal.volumes ?? []) {
    if (typeof volume !== 'string') continue;
    const [source = '', target = ''] = volume.split(':');
    if (target === IMAGE_DYNAMIC_CONFIG) return path.resolve(path.dirname(file), source);
  }
  throw new ComposeShapeError(`temporal mounts no dynamic config file at ${IMAGE_DYNAMIC_CONFIG}`);
}

/**
 * Everything the local cluster takes from docker-compose.yml.
 *
 * @param {string} [file]
 */
function readComposeSettings(file = COMPOSE_FILE) {
  const compose = parse(fs.readFileSync(file, 'utf8'), { merge: true });
  const services = compose?.services;
  if (services === undefined || services === null) throw new ComposeShapeError('no services');

  const postgresql = service(services, 'postgresql');
  const schema = service(services, 'temporal-schema');
  const temporal = service(services, 'temporal');
  const namespaceService = service(services, 'temporal-namespace');

  const postgresEnvironment = environmentOf(postgresql);
  const schemaScript = scriptOf(schema);
  const namespaceScript = scriptOf(namespaceService);
  const retention = /namespace create .*--retention (\S+)/.exec(namespaceScript);
  if (retention === null)
    throw new ComposeShapeError('temporal-namespace creates no namespace with --retention');
  const namespace = environmentOf(namespaceService).NAMESPACE;
  if (namespace === undefined || namespace === '')
    throw new ComposeShapeError('temporal-namespace sets no NAMESPACE');

  return {
    temporalVersion: imageTag(temporal, 'temporal'),
    postgresVersion: imageTag(postgresql, 'postgresql'),
    postgresUser: postgresEnvironment.POSTGRES_USER ?? '',
    postgresPassword: postgresEnvironment.POSTGRES_PASSWORD ?? '',
    /** The `temporal` service's environment: what the server image renders its configuration from. */
    serverEnvironment: environmentOf(temporal),
    /** The dynamic config file compose mounts into the server. */
    dynamicConfigFile: dynamicConfigFileOf(temporal, file),
    /** The `temporal-schema` service's environment (`SQL_PASSWORD` and the database settings). */
    schemaEnvironment: environmentOf(schema),
    schema: { ...parseSchemaScript(schemaScript), databaseOf: parseDatabaseOfStore(schemaScript) },
    namespace,
    namespaceRetention: retention[1] ?? '',
  };
}

module.exports = { COMPOSE_FILE, ComposeShapeError, interpolate, readComposeSettings, shellWords };
