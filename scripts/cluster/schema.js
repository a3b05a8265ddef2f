/**
 * The `temporal-schema` service of docker-compose.yml, run against the local PostgreSQL: for each store
 * (`temporal`, `visibility`), the same `temporal-sql-tool` subcommands with the same flags and environment,
 * read from the compose file (scripts/cluster/compose.js). Only what differs outside a container changes: the
 * endpoint and port (`--ep 127.0.0.1 -p <port>`) and where the versioned schema lives (the admin-tools image
 * keeps it in /etc/temporal/schema, the cluster next to its binaries).
 */
'use strict';

const { run } = require('./processes');

/** Where the admin-tools image keeps the schema that the compose script's `update-schema -d` names. */
const IMAGE_SCHEMA_DIR = '/etc/temporal/schema';

/**
 * The shared flags with the endpoint and port replaced.
 *
 * @param {string[]} flags  from the compose script's `sql()` function
 * @param {string} host
 * @param {number} port
 */
function withEndpoint(flags, host, port) {
  const result = [...flags];
  for (const [names, value] of [
    [['--ep', '--endpoint'], host],
    [['-p', '--port'], String(port)],
  ]) {
    const at = result.findIndex((flag) => names.includes(flag));
    if (at === -1)
      throw new Error(`the compose file's sql() passes no ${names.join('/')} to temporal-sql-tool`);
    result[at + 1] = value;
  }
  return result;
}

/**
 * Creates or upgrades both databases' schema, as compose's `temporal-schema` does on every start. A step the
 * compose script lets fail (`|| echo ...`: the database or the version table already exists) may fail here too.
 *
 * @param {{ sqlTool: string, schemaDir: string, host: string, port: number,
 *   settings: ReturnType<typeof import('./compose').readComposeSettings>, log: (line: string) => void }} options
 */
async function setupSchemas(options) {
  const { schema, schemaEnvironment } = options.settings;
  const flags = withEndpoint(schema.sqlToolFlags, options.host, options.port);
  const env = { ...process.env, ...schemaEnvironment };
  for (const store of schema.stores) {
    const database = schema.databaseOf(store);
    for (const step of schema.steps) {
      const args = step.args.map((arg) =>
        arg
          .replaceAll('$store', store)
          .replaceAll('$database', database)
          .replace(IMAGE_SCHEMA_DIR, options.schemaDir),
      );
      try {
        await run(options.sqlTool, [...flags, '--db', database, ...args], { env });
      } catch (error) {
        if (!step.tolerated) throw new Error(`schema of ${database}: ${error.message}`, { cause: error });
        options.log(`schema of ${database}: ${args[0]} skipped (already done)`);
      }
    }
  }
}

module.exports = { setupSchemas, withEndpoint };
