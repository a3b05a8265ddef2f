/**
 * The container stack as an operator reads it: `docker-compose.yml` (PostgreSQL, the Temporal server, its Web
 * UI and the ask-user worker), the `Dockerfile` the worker is built from and `.dockerignore`. No Docker daemon
 * is needed: the files are parsed and checked against the package itself (its CLI commands, its scripts, its
 * bin, its default task queue), and the shell scripts inside the compose file are syntax-checked by `sh -n`.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';

import { parse } from 'yaml';

import { DEFAULT_TASK_QUEUE } from '../../src/question/definitions';

const ROOT = path.join(__dirname, '../..');

interface Service {
  image?: string;
  build?: { context?: string; dockerfile?: string };
  command?: string[] | string;
  entrypoint?: string[] | string;
  environment?: Record<string, string>;
  ports?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  volumes?: string[];
}

interface Compose {
  name?: string;
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

const compose = parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), {
  merge: true,
}) as Compose;
const services = compose.services;
const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  bin: Record<string, string>;
};

function service(name: string): Service {
  const found = services[name];
  assert.ok(found !== undefined, `docker-compose.yml has no service ${name}`);
  return found;
}

/** Resolves compose interpolation the way `docker compose` does with an empty environment. */
function interpolate(value: string): string {
  return value
    .replace(
      /\$\{(\w+)(?::?-([^}]*))?\}/g,
      (_match, _name: string, fallback: string | undefined) => fallback ?? '',
    )
    .replace(/\$\$/g, '$');
}

/** The image a service runs, with its pinned default version. */
function image(name: string): string {
  return interpolate(service(name).image ?? '');
}

function environment(name: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(service(name).environment ?? {}).map(([key, value]) => [key, interpolate(String(value))]),
  );
}

/** Dockerfile instructions with line continuations joined, as `[INSTRUCTION, arguments]`. */
function instructions(text: string): [string, string][] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [keyword = '', ...rest] = line.split(/\s+/);
      return [keyword.toUpperCase(), rest.join(' ')];
    });
}

/** The command names `ask-user help` lists under "Commands:". */
async function cliCommands(): Promise<string[]> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [path.join(ROOT, 'bin', 'ask-user.js'), 'help'],
    {
      cwd: ROOT,
    },
  );
  const section = stdout.split('Commands:')[1] ?? '';
  return [...section.matchAll(/^ {2}([a-z][\w-]*)\b/gm)].map((match) => match[1]!);
}

describe('docker-compose.yml', () => {
  test('runs PostgreSQL, the Temporal server with its schema and namespace jobs, the Web UI and the worker', () => {
    assert.deepEqual(Object.keys(services).sort(), [
      'postgresql',
      'temporal',
      'temporal-namespace',
      'temporal-schema',
      'temporal-ui',
      'worker',
    ]);
    assert.equal(compose.name, 'durable-ask-user');
  });

  test('every depends_on names a service of the file, with a condition compose knows', () => {
    const conditions = new Set(['service_started', 'service_healthy', 'service_completed_successfully']);
    for (const [name, definition] of Object.entries(services)) {
      for (const [dependency, { condition }] of Object.entries(definition.depends_on ?? {})) {
        assert.ok(services[dependency] !== undefined, `${name} depends on unknown service ${dependency}`);
        assert.ok(conditions.has(condition), `${name} -> ${dependency}: unknown condition ${condition}`);
        if (condition === 'service_healthy') {
          assert.ok(
            services[dependency]?.healthcheck,
            `${name} waits for ${dependency} to be healthy, which has no healthcheck`,
          );
        }
      }
    }
  });

  test('PostgreSQL keeps its data in a named volume and reports when it is ready', () => {
    const postgresql = service('postgresql');
    assert.match(image('postgresql'), /^postgres:\d+$/);
    assert.deepEqual(postgresql.volumes, ['postgresql-data:/var/lib/postgresql/data']);
    assert.ok(compose.volumes !== undefined && 'postgresql-data' in compose.volumes);
    assert.deepEqual(postgresql.healthcheck?.test, ['CMD-SHELL', 'pg_isready -U temporal']);
    assert.equal(environment('postgresql').POSTGRES_USER, 'temporal');
  });

  test('the Temporal server persists to that PostgreSQL, after its schema is set up, on port 7233', () => {
    const temporal = service('temporal');
    assert.match(image('temporal'), /^temporalio\/server:\d+\.\d+\.\d+$/);
    assert.deepEqual(temporal.ports, ['7233:7233']);
    assert.deepEqual(temporal.depends_on, {
      'temporal-schema': { condition: 'service_completed_successfully' },
    });
    const database = environment('temporal');
    assert.equal(database.DB, 'postgres12');
    assert.equal(database.POSTGRES_SEEDS, 'postgresql');
    assert.equal(database.DB_PORT, '5432');
    assert.equal(database.POSTGRES_USER, environment('postgresql').POSTGRES_USER);
    assert.equal(database.POSTGRES_PWD, environment('postgresql').POSTGRES_PASSWORD);
    // The server image has no client to probe itself with: readiness is the namespace job's health loop.
    assert.equal(temporal.healthcheck, undefined);
    // The server refuses to start without a dynamic config file, and the image carries none.
    assert.deepEqual(temporal.volumes, [
      './deploy/temporal-dynamic-config.yaml:/etc/temporal/config/dynamicconfig/docker.yaml:ro',
    ]);
    assert.ok(existsSync(path.join(ROOT, 'deploy', 'temporal-dynamic-config.yaml')));

    const schema = service('temporal-schema');
    assert.match(image('temporal-schema'), /^temporalio\/admin-tools:\d+\.\d+\.\d+$/);
    // The schema tools must be of the server's version, or the schema would not be the one the server expects.
    assert.equal(image('temporal-schema').split(':')[1], image('temporal').split(':')[1]);
    assert.deepEqual(schema.depends_on, { postgresql: { condition: 'service_healthy' } });
    assert.equal(environment('temporal-schema').SQL_PASSWORD, database.POSTGRES_PWD);
    const script = interpolate(String(schema.command?.[0]));
    assert.match(script, /update-schema -d "\/etc\/temporal\/schema\/postgresql\/v12\/\$store\/versioned"/);
    assert.match(script, /for store in temporal visibility/);
  });

  test('the namespace job registers the namespace the worker uses', () => {
    const namespace = service('temporal-namespace');
    assert.match(image('temporal-namespace'), /^temporalio\/admin-tools:\d+\.\d+\.\d+$/);
    assert.deepEqual(namespace.depends_on, { temporal: { condition: 'service_started' } });
    // It waits for the server itself, with the admin-tools CLI, before it registers the namespace.
    assert.match(interpolate(String(namespace.command?.[0])), /until temporal operator cluster health/);
    assert.equal(environment('temporal-namespace').NAMESPACE, environment('worker').TEMPORAL_NAMESPACE);
    assert.match(
      interpolate(String(namespace.command?.[0])),
      /temporal operator namespace create --namespace "\$NAMESPACE"/,
    );
  });

  test('the Web UI talks to the server and is published on port 8080', () => {
    const ui = service('temporal-ui');
    assert.match(image('temporal-ui'), /^temporalio\/ui:\d+\.\d+\.\d+$/);
    assert.deepEqual(ui.ports, ['8080:8080']);
    assert.equal(environment('temporal-ui').TEMPORAL_ADDRESS, 'temporal:7233');
    assert.deepEqual(ui.depends_on, {
      'temporal-namespace': { condition: 'service_completed_successfully' },
    });
  });

  test('the shell scripts of the one-shot jobs parse', () => {
    for (const name of ['temporal-schema', 'temporal-namespace']) {
      const definition = service(name);
      assert.deepEqual(definition.entrypoint, ['/bin/sh', '-c']);
      const script = interpolate(String(definition.command?.[0]));
      assert.doesNotThrow(
        () => execFileSync('sh', ['-n'], { input: script, stdio: ['pipe', 'pipe', 'pipe'] }),
        name,
      );
    }
  });

  test('the worker is built from the Dockerfile and runs `ask-user worker` against the server', async () => {
    const worker = service('worker');
    assert.deepEqual(worker.build, { context: '.', dockerfile: 'Dockerfile' });
    assert.ok(existsSync(path.join(ROOT, worker.build?.dockerfile ?? '')));
    assert.deepEqual(worker.command, ['worker']);
    assert.equal(worker.entrypoint, undefined, 'the image ENTRYPOINT (the ask-user bin) must stay in force');
    const commands = await cliCommands();
    assert.ok(commands.includes('worker'), `ask-user help lists ${commands.join(', ')}`);
    assert.ok(commands.includes('list') && commands.includes('answer'), 'the help parser found the commands');

    assert.deepEqual(worker.depends_on, {
      'temporal-namespace': { condition: 'service_completed_successfully' },
    });
    const variables = environment('worker');
    assert.equal(variables.TEMPORAL_ADDRESS, 'temporal:7233');
    assert.ok(service('temporal').ports?.some((port) => port.endsWith(':7233')));
    assert.equal(variables.TEMPORAL_NAMESPACE, 'default');
    assert.equal(variables.ASK_USER_TASK_QUEUE, DEFAULT_TASK_QUEUE);
    // Optional, and empty unless the operator sets it.
    assert.equal(variables.ASK_USER_WEBHOOK_URLS, '');
    assert.equal(worker.environment?.ASK_USER_WEBHOOK_URLS, '${ASK_USER_WEBHOOK_URLS:-}');
  });
});

describe('Dockerfile', () => {
  const steps = instructions(dockerfile);
  const stages = steps.filter(([keyword]) => keyword === 'FROM');
  const finalStage = steps.slice(steps.lastIndexOf(stages.at(-1)!));

  test('is a multi-stage build on Node 20', () => {
    assert.ok(stages.length >= 2, 'a build stage and a runtime stage');
    const nodeImage = steps.find(([keyword, rest]) => keyword === 'ARG' && rest.startsWith('NODE_IMAGE='));
    assert.match(nodeImage?.[1] ?? '', /^NODE_IMAGE=node:20(-|$)/);
    assert.ok(stages.every(([, rest]) => rest.startsWith('${NODE_IMAGE}')));
  });

  test("installs with npm ci, compiles with the root's build:dist script and prunes the dev dependencies", () => {
    const runs = steps.filter(([keyword]) => keyword === 'RUN').map(([, rest]) => rest);
    assert.ok(runs.some((run) => run.startsWith('npm ci')));
    assert.ok(runs.some((run) => /(^|&&\s*)npm run build:dist\b/.test(run)));
    assert.equal(typeof manifest.scripts['build:dist'], 'string');
    assert.ok(runs.some((run) => /npm prune --omit=dev/.test(run)));
  });

  test('runs as a non-root user with the ask-user bin as its entrypoint', () => {
    const user = finalStage.filter(([keyword]) => keyword === 'USER').at(-1)?.[1];
    assert.ok(user !== undefined && user !== 'root' && user !== '0', `final stage USER: ${user}`);

    const entrypoint = JSON.parse(
      finalStage.find(([keyword]) => keyword === 'ENTRYPOINT')?.[1] ?? 'null',
    ) as string[];
    // The image runs the checkout's bin (compiled dist/, the whole CLI), the one `npm start` and `npx ask-user`
    // run in a checkout too.
    assert.deepEqual(entrypoint, ['node', '/app/bin/ask-user.js']);
    assert.equal(manifest.bin['ask-user'], './bin/ask-user.js');
    assert.ok(existsSync(path.join(ROOT, 'bin', 'ask-user.js')));
    const command = JSON.parse(finalStage.find(([keyword]) => keyword === 'CMD')?.[1] ?? 'null') as string[];
    assert.deepEqual(command, ['worker']);
    // The worker's memory tuning (README, "Worker memory") is the image's default.
    assert.ok(finalStage.some(([keyword, rest]) => keyword === 'ENV' && rest === 'MALLOC_ARENA_MAX=2'));
    // The runtime stage carries the compiled CLI that bin/ask-user.js loads.
    assert.ok(
      finalStage.some(([keyword, rest]) => keyword === 'COPY' && rest === '--from=build /app/dist ./dist'),
    );
  });

  test('copies only files that exist and that .dockerignore lets into the build context', () => {
    const patterns = readFileSync(path.join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'));
    /** Docker's rule: the last pattern that matches the path or one of its parent folders decides. */
    const isIgnored = (file: string): boolean => {
      let ignored = false;
      for (const pattern of patterns) {
        const negated = pattern.startsWith('!');
        const glob = negated ? pattern.slice(1) : pattern;
        const expression = new RegExp(
          `^${glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}(/.*)?$`,
        );
        if (expression.test(file)) ignored = !negated;
      }
      return ignored;
    };
    assert.ok(isIgnored('node_modules') && isIgnored('dist/index.js') && isIgnored('.git'));
    assert.ok(isIgnored('test/workflow.test.ts') && isIgnored('scripts/record-histories.ts'));

    const sources = steps
      .filter(([keyword, rest]) => keyword === 'COPY' && !rest.startsWith('--from'))
      .flatMap(([, rest]) => rest.split(/\s+/).slice(0, -1));
    assert.deepEqual(sources.sort(), [
      'bin',
      'package-lock.json',
      'package.json',
      'scripts/build-workflow-bundle.js',
      'scripts/copy-assets.js',
      'src',
      'tsconfig.build.json',
      'tsconfig.json',
    ]);
    for (const source of sources) {
      assert.ok(existsSync(path.join(ROOT, source)), `${source} exists`);
      assert.ok(!isIgnored(source), `${source} is not excluded by .dockerignore`);
    }
  });
});
