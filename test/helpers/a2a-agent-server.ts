/**
 * Child-process entry point: an A2A agent server, as a user of `durable-ask-user/a2a` writes one. A real agent
 * loop (a scripted stand-in for the model) asks through `ask_user_question` and runs a `deploy` tool behind
 * `requireApproval`; `AskUserA2AHandler` serves it over JSON-RPC (`/a2a/jsonrpc`) and REST (`/a2a/rest`) with
 * the SDK's Express handlers, its tasks kept in the SDK's `DatabaseTaskStore` on a SQLite file, so that a
 * SIGKILLed server started again on the same file finds its tasks. It takes push notification configs (kept in
 * memory).
 *
 * Environment: `TEMPORAL_ADDRESS`, `ASK_USER_TASK_QUEUE`, `A2A_DB_FILE` (migrated with `a2a-db upgrade`),
 * `A2A_PORT`. Prints `{"event":"listening","url":...,"resumed":<tasks taken up from the store>}` once it serves, and `{"event":"deployed","input":...}`
 * each time the deploy tool runs.
 *
 * The agent: a task whose text starts with `deploy` asks to run `deploy` with `{"version":"1.4.2","env":
 * "staging"}`; any other task asks one question, `environment` (staging or production). Each ends with a text
 * that carries what it got back, as JSON.
 */
import express from 'express';
import { Kysely, SqliteDialect, type SqliteDatabase } from 'kysely';
import { AGENT_CARD_PATH, type AgentCard } from '@a2a-js/sdk';
import { DatabaseTaskStore } from '@a2a-js/sdk/server/database';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { AskUserA2AHandler, type A2AAgentTask } from '../../src/a2a';
import { QuestionClient } from '../../src/ops';
import { TemporalUserInteraction } from '../../src/provider';
import { createAskUserQuestionTool, requireApproval } from '../../src/tool';

/** The question the agent asks. */
export const ENVIRONMENT_QUESTION = {
  id: 'environment',
  header: 'Target',
  question: 'Where should I deploy build 1.4.2?',
  options: [
    { label: 'staging', description: 'Verify there first' },
    { label: 'production', description: 'Customers get it at once' },
  ],
};

/** The input the agent asks to run `deploy` with. */
export const DEPLOY_INPUT = { version: '1.4.2', env: 'staging' };

/** What the test uses of `node:sqlite` (Node 22.5+), which the typings of Node 20 do not have. */
interface NodeSqlite {
  DatabaseSync: new (file: string) => {
    close(): void;
    prepare(sql: string): {
      columns(): unknown[];
      all(...parameters: unknown[]): unknown[];
      run(...parameters: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
      iterate(...parameters: unknown[]): IterableIterator<unknown>;
    };
  };
}

/**
 * The SQLite database under the SDK's `DatabaseTaskStore`, for kysely's SQLite dialect. better-sqlite3 is a
 * native addon built for the Node that installed it (the machine's Node 20), so a Node with its own SQLite
 * (`node:sqlite`, whose statements tell a reader by their columns) uses that through the same interface, and the
 * suite runs on Node 20 and 24 alike.
 */
function sqliteDatabase(file: string): SqliteDatabase {
  let nodeSqlite: NodeSqlite | undefined;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    nodeSqlite = require('node:sqlite') as NodeSqlite;
    // Statements that list their columns came with 22.16; before, the addon serves (as on Node 20).
    const probe = new nodeSqlite.DatabaseSync(':memory:').prepare('select 1') as { columns?: unknown };
    if (typeof probe.columns !== 'function') nodeSqlite = undefined;
  } catch {
    // Node 20: no built-in SQLite.
  }
  if (nodeSqlite === undefined) {
    // better-sqlite3 ships no types; kysely's dialect takes any database with its interface.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const Database = require('better-sqlite3') as new (file: string) => SqliteDatabase;
    return new Database(file);
  }
  const database = new nodeSqlite.DatabaseSync(file);
  return {
    close: () => database.close(),
    prepare: (sql) => {
      const statement = database.prepare(sql);
      return {
        reader: statement.columns().length > 0,
        all: (parameters) => statement.all(...parameters),
        run: (parameters) => statement.run(...parameters),
        iterate: (parameters) => statement.iterate(...parameters),
      };
    },
  };
}

const DEPLOY_SCHEMA = {
  type: 'object',
  properties: { version: { type: 'string' }, env: { enum: ['staging', 'production'] } },
  required: ['version', 'env'],
  additionalProperties: false,
} as const;

type Turn = { toolCall: { id: string; name: string; arguments: unknown } } | { text: string };

/** The stand-in model: one tool call for the task, then a text quoting the tool's result. */
function scriptedModel(task: string, results: readonly string[]): Turn {
  const [result] = results;
  if (result !== undefined) return { text: `Done. The tool returned: ${result}` };
  if (task.startsWith('deploy'))
    return { toolCall: { id: 'call_deploy', name: 'deploy', arguments: DEPLOY_INPUT } };
  return {
    toolCall: { id: 'call_ask', name: 'ask_user_question', arguments: { questions: [ENVIRONMENT_QUESTION] } },
  };
}

function emit(event: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(event)}\n`);
}

/** The agent loop of one A2A task: the model's calls run through the task's `userInteraction`, keyed by its agent. */
async function runAgent(task: A2AAgentTask): Promise<string> {
  const askTool = createAskUserQuestionTool({ userInteraction: task.userInteraction });
  const deployTool = requireApproval(
    {
      name: 'deploy',
      execute: (input: unknown) => {
        emit({ event: 'deployed', taskId: task.taskId, input });
        return `deployed ${JSON.stringify(input)}`;
      },
    },
    { userInteraction: task.userInteraction, inputSchema: DEPLOY_SCHEMA, description: 'Deploys a build' },
  );
  const results: string[] = [];
  for (let step = 0; step < 5; step += 1) {
    const turn = scriptedModel(task.text, results);
    if ('text' in turn) return turn.text;
    const context = { toolCallId: turn.toolCall.id, agent: task.agent, signal: task.signal };
    const tool = turn.toolCall.name === 'deploy' ? deployTool : askTool;
    results.push(String(await tool.execute(turn.toolCall.arguments, context)));
  }
  throw new Error('the model did not stop');
}

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is not set`);
  return value;
}

async function main(): Promise<void> {
  const port = Number(required('A2A_PORT'));
  const base = `http://127.0.0.1:${port}`;
  const agentCard: AgentCard = {
    name: 'Deploy assistant',
    description: 'Deploys builds, asking first',
    version: '1.0.0',
    supportedInterfaces: [
      { url: `${base}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
      { url: `${base}/a2a/rest`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: '1.0' },
    ],
    provider: undefined,
    capabilities: { streaming: true, pushNotifications: true, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [],
    signatures: [],
  };
  const db = new Kysely<unknown>({
    dialect: new SqliteDialect({ database: sqliteDatabase(required('A2A_DB_FILE')) }),
  });
  // Connects from TEMPORAL_ADDRESS and TEMPORAL_NAMESPACE, as a deployed agent does.
  const userInteraction = new TemporalUserInteraction({ taskQueue: required('ASK_USER_TASK_QUEUE') });
  const questions = new QuestionClient(await userInteraction.client());
  const handler = new AskUserA2AHandler({
    agentCard,
    // kysely 0.28 declares its types twice (CommonJS and ESM); the SDK names the ESM ones, the same class.
    taskStore: new DatabaseTaskStore(db as unknown as ConstructorParameters<typeof DatabaseTaskStore>[0]),
    agentId: 'deploy-assistant',
    userInteraction,
    questions,
    run: runAgent,
  });
  const app = express();
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: handler }));
  app.use(
    '/a2a/jsonrpc',
    jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }),
  );
  app.use('/a2a/rest', restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  // Tasks left waiting by a process that died move on when their question is answered anywhere.
  const resumed = await handler.resumeWaitingTasks();
  app.listen(port, '127.0.0.1', () => emit({ event: 'listening', url: base, resumed }));
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(
      `a2a-agent-server: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  });
}
