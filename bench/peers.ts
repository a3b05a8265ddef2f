/**
 * The peers: the same exchange (ask, answer from another actor, receive) on the two other ways people wait for a
 * human, each run durably the way its docs describe.
 *
 * - LangGraph.js: a one-node graph that calls `interrupt()` with the question, compiled with the SQLite
 *   checkpointer on a file; the agent invokes it until it interrupts, the answerer resumes it with
 *   `Command({ resume })`, and that call runs the rest of the graph and returns its final state.
 * - Restate: the `restate-server` binary on loopback ports with its own data directory, and a service served by
 *   the SDK on loopback in this process. Its handler creates an awakeable, publishes the awakeable's id (a
 *   journaled `ctx.run`, as a handler would post it to a chat or a queue) and awaits it; the agent calls the
 *   handler through the ingress and waits for its response; the answerer resolves the awakeable through the
 *   ingress.
 *
 * Each module also checks what its peer does when two answerers answer the same question.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http2 from 'node:http2';
import path from 'node:path';

import {
  Annotation,
  Command,
  END,
  MemorySaver,
  START,
  StateGraph,
  interrupt,
  type BaseCheckpointSaver,
} from '@langchain/langgraph';
import * as restate from '@restatedev/restate-sdk';
import * as restateClients from '@restatedev/restate-sdk-clients';

import { recordChild } from './processes';
import { answerFor, benchArgs, checkReceived, type DoubleAnswerFinding, type Workload } from './workloads';

const LOOPBACK = '127.0.0.1';

/** Where a peer's answer lands and what the asker receives, for comparing with the answer given. */
function receivedText(received: unknown): string {
  const answers = (received as { answers?: unknown } | undefined)?.answers;
  return JSON.stringify({ answers });
}

// ---------------------------------------------------------------------------------------------------------
// LangGraph.js

const QuestionState = Annotation.Root({
  key: Annotation<string>(),
  questions: Annotation<unknown>(),
  answer: Annotation<unknown>(),
});

/** The checkpointer in use; when the SQLite one cannot load, the in-memory one and why. */
interface Checkpointer {
  saver: BaseCheckpointSaver;
  durable: boolean;
  label: string;
}

async function checkpointer(file: string): Promise<Checkpointer> {
  try {
    const { SqliteSaver } = await import('@langchain/langgraph-checkpoint-sqlite');
    return {
      // One copy of the checkpoint package is installed; the two packages' declarations differ in a type parameter.
      saver: SqliteSaver.fromConnString(file) as unknown as BaseCheckpointSaver,
      durable: true,
      label: 'LangGraph interrupt(), SQLite checkpointer on a file',
    };
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0]! : String(error);
    return {
      saver: new MemorySaver(),
      durable: false,
      label: `LangGraph interrupt(), MemorySaver (not durable, sqlite unavailable: ${reason})`,
    };
  }
}

function compileGraph(saver: BaseCheckpointSaver) {
  return new StateGraph(QuestionState)
    .addNode('ask', (state) => ({ answer: interrupt({ key: state.key, questions: state.questions }) }))
    .addEdge(START, 'ask')
    .addEdge('ask', END)
    .compile({ checkpointer: saver });
}

/** LangGraph.js with the SQLite checkpointer on `directory/langgraph.sqlite` (MemorySaver if it cannot load). */
export async function langGraphWorkload(directory: string): Promise<Workload> {
  const chosen = await checkpointer(path.join(directory, 'langgraph.sqlite'));
  const graph = compileGraph(chosen.saver);
  const workload: Workload = {
    name: chosen.durable ? 'LangGraph + SQLite' : 'LangGraph + MemorySaver',
    group: 'peer',
    floor: 'floor, signal',
    description:
      `${chosen.label}: invoke until interrupt() (checkpoint written), then the answerer's ` +
      '`invoke(new Command({ resume }))` runs the rest of the graph and returns its state, in this process',
    processes: {},
    async question(key) {
      const config = { configurable: { thread_id: key } };
      const interrupted = await graph.invoke({ key, questions: benchArgs.questions }, config);
      if (!('__interrupt__' in interrupted)) throw new Error(`thread ${key} did not interrupt`);
      const finished = await graph.invoke(new Command({ resume: answerFor(key) }), config);
      checkReceived(key, receivedText(finished.answer));
    },
    async close() {
      (chosen.saver as { db?: { close?: () => void } }).db?.close?.();
    },
  };
  const doubleAnswer = async (): Promise<DoubleAnswerFinding> => {
    const config = { configurable: { thread_id: 'double-answer' } };
    await graph.invoke({ key: 'double-answer', questions: benchArgs.questions }, config);
    const [first, second] = await Promise.allSettled([
      graph.invoke(new Command({ resume: answerFor('answerer A') }), config),
      graph.invoke(new Command({ resume: answerFor('answerer B') }), config),
    ]);
    const late = await graph.invoke(new Command({ resume: answerFor('answerer C') }), config).then(
      (state) => ({ status: 'fulfilled', answer: receivedText(state.answer) }),
      (error: unknown) => ({ status: 'rejected', reason: String(error) }),
    );
    const final = await graph.getState(config);
    const outcome = (result: PromiseSettledResult<{ answer?: unknown }>): Record<string, unknown> =>
      result.status === 'fulfilled'
        ? { status: 'fulfilled', answer: receivedText(result.value.answer) }
        : { status: 'rejected', reason: String(result.reason) };
    const details = {
      concurrentResumeA: outcome(first),
      concurrentResumeB: outcome(second),
      resumeAfterFinish: late,
      finalState: receivedText((final.values as { answer?: unknown }).answer),
    };
    const bothRan = first.status === 'fulfilled' && second.status === 'fulfilled';
    const summary = bothRan
      ? `two concurrent resumes of one interrupted thread both succeeded, each returning its own answer (the ` +
        `rest of the graph ran twice; the saved state kept ${details.finalState.includes('answerer B') ? 'B' : 'A'}); ` +
        `a resume of the finished thread ${late.status === 'fulfilled' ? 'returned the old state without an error' : 'failed'}`
      : `concurrent resumes: ${JSON.stringify(details)}`;
    return { summary, details };
  };
  return { ...workload, doubleAnswer };
}

// ---------------------------------------------------------------------------------------------------------
// Restate

/** restate-sdk 1.17 calls `Promise.withResolvers` (Node 22); on Node 20 the benchmark supplies it. */
function ensurePromiseWithResolvers(): void {
  const promiseConstructor = Promise as unknown as { withResolvers?: unknown };
  if (typeof promiseConstructor.withResolvers === 'function') return;
  promiseConstructor.withResolvers = <T>() => {
    let resolve!: (value: T | PromiseLike<T>) => void;
    let reject!: (reason?: unknown) => void;
    const promise = new Promise<T>((resolveWith, rejectWith) => {
      resolve = resolveWith;
      reject = rejectWith;
    });
    return { promise, resolve, reject };
  };
}

/** Published awakeable ids, by question key: the answerer's side of the channel. */
class AwakeableChannel {
  private readonly waiting = new Map<string, { promise: Promise<string>; resolve: (id: string) => void }>();

  publish(key: string, id: string): void {
    this.entry(key).resolve(id);
  }

  async next(key: string): Promise<string> {
    try {
      return await this.entry(key).promise;
    } finally {
      this.waiting.delete(key);
    }
  }

  private entry(key: string): { promise: Promise<string>; resolve: (id: string) => void } {
    let entry = this.waiting.get(key);
    if (entry === undefined) {
      let resolve: (id: string) => void = () => undefined;
      const promise = new Promise<string>((done) => (resolve = done));
      entry = { promise, resolve };
      this.waiting.set(key, entry);
    }
    return entry;
  }
}

function questionService(channel: AwakeableChannel) {
  return restate.service({
    name: 'question',
    handlers: {
      ask: async (
        context: restate.Context,
        request: { key: string; questions: unknown },
      ): Promise<unknown> => {
        const { id, promise } = context.awakeable<unknown>();
        await context.run('publish', () => channel.publish(request.key, id));
        return await promise;
      },
    },
  });
}

/** A running Restate server. */
interface RestateServer {
  process: ChildProcess;
  ingressUrl: string;
  adminUrl: string;
  stop(): Promise<void>;
}

function restateBinary(): string {
  return path.join(
    path.dirname(require.resolve('@restatedev/restate-server-linux-x64/package.json')),
    'bin',
    'restate-server',
  );
}

async function waitForHealth(url: string, server: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (server.exitCode !== null || server.signalCode !== null)
      throw new Error('restate-server exited during start-up');
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline)
      throw new Error(`restate-server was not healthy at ${url} within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function startRestateServer(
  directory: string,
  ports: { ingress: number; admin: number; fabric: number },
): Promise<RestateServer> {
  const baseDirectory = path.join(directory, 'restate');
  fs.mkdirSync(baseDirectory, { recursive: true });
  const child = spawn(
    restateBinary(),
    [
      '--base-dir',
      baseDirectory,
      '--bind-ip',
      LOOPBACK,
      '--bind-port',
      String(ports.fabric),
      '--listen-mode',
      'tcp',
      '--no-logo',
    ],
    {
      env: {
        ...process.env,
        RESTATE_INGRESS__BIND_PORT: String(ports.ingress),
        RESTATE_ADMIN__BIND_PORT: String(ports.admin),
        RESTATE_DISABLE_TELEMETRY: 'true',
        RESTATE_LOG_FILTER: 'error',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  recordChild(child);
  // Its log (errors only) is kept for a failed start-up; at run time it only reports its update check failing
  // on a machine without internet access.
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => (log = (log + chunk.toString('utf8')).slice(-4096)));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  const adminUrl = `http://${LOOPBACK}:${ports.admin}`;
  try {
    await waitForHealth(`${adminUrl}/health`, child, 60_000);
  } catch (error) {
    await stop();
    throw new Error(
      `${error instanceof Error ? error.message : String(error)}; its log ends: ${log.slice(-500)}`,
      {
        cause: error,
      },
    );
  }
  return { process: child, ingressUrl: `http://${LOOPBACK}:${ports.ingress}`, adminUrl, stop };
}

/** Restate awakeables: the server, the service endpoint in this process, and the workload over them. */
export async function restateWorkload(directory: string, freePort: () => Promise<number>): Promise<Workload> {
  ensurePromiseWithResolvers();
  const server = await startRestateServer(directory, {
    ingress: await freePort(),
    admin: await freePort(),
    fabric: await freePort(),
  });
  const channel = new AwakeableChannel();
  const service = questionService(channel);
  const endpoint = http2.createServer(
    restate.createEndpointHandler({
      services: [service],
      logger: (meta, message: unknown, ...rest: unknown[]) => {
        // The SDK declares its log levels as an enum that it does not export at run time.
        if ((meta.level as string) === 'error')
          process.stderr.write(`restate endpoint: ${String(message)} ${rest.map(String).join(' ')}\n`);
      },
    }),
  );
  // The server keeps its HTTP/2 sessions to the endpoint open; closing waits for them, so they are ended here.
  const sessions = new Set<http2.ServerHttp2Session>();
  endpoint.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  const closeEndpoint = async (): Promise<void> => {
    const closed = new Promise<void>((resolve) => endpoint.close(() => resolve()));
    for (const session of sessions) session.destroy();
    await closed;
  };
  try {
    const endpointPort = await freePort();
    await new Promise<void>((resolve, reject) => {
      endpoint.once('error', reject);
      endpoint.listen(endpointPort, LOOPBACK, () => resolve());
    });
    const registration = await fetch(`${server.adminUrl}/deployments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ uri: `http://${LOOPBACK}:${endpointPort}` }),
    });
    if (!registration.ok) {
      throw new Error(
        `registering the Restate deployment failed: ${registration.status} ${await registration.text()}`,
      );
    }
  } catch (error) {
    await closeEndpoint();
    await server.stop();
    throw error;
  }
  const ingress = restateClients.connect({ url: server.ingressUrl });
  const client = ingress.serviceClient<typeof service>({ name: 'question' });

  const ask = async (
    key: string,
    answers: unknown[],
  ): Promise<{ received: unknown; resolutions: PromiseSettledResult<void>[] }> => {
    const received = Promise.resolve(client.ask({ key, questions: benchArgs.questions }));
    received.catch(() => undefined);
    const id = await Promise.race([
      channel.next(key),
      received.then(() => Promise.reject(new Error(`${key}: the handler returned before publishing`))),
    ]);
    const resolutions = await Promise.allSettled(
      answers.map((answer) => ingress.resolveAwakeable(id, answer)),
    );
    return { received: await received, resolutions };
  };

  const workload: Workload = {
    name: 'Restate awakeable',
    group: 'peer',
    floor: 'floor, signal',
    description:
      'restate-server (its own data directory) + a service served by the SDK in this process: the handler creates ' +
      'an awakeable and publishes its id (ctx.run); the agent waits on the ingress call, the answerer resolves the ' +
      'awakeable through the ingress',
    processes: { server: server.process.pid },
    async question(key) {
      const { received, resolutions } = await ask(key, [answerFor(key)]);
      const failed = resolutions.find((resolution) => resolution.status === 'rejected');
      if (failed !== undefined) throw failed.reason;
      checkReceived(key, receivedText(received));
    },
    async close() {
      await server.stop();
      await closeEndpoint();
    },
  };
  const doubleAnswer = async (): Promise<DoubleAnswerFinding> => {
    const key = 'double-answer';
    const { received, resolutions } = await ask(key, [answerFor('answerer A'), answerFor('answerer B')]);
    const statusOf = (resolution: PromiseSettledResult<void> | undefined): string =>
      resolution === undefined
        ? 'missing'
        : resolution.status === 'fulfilled'
          ? 'accepted'
          : `rejected: ${String(resolution.reason)}`;
    // The awakeable of a finished question, resolved again.
    const idAfter = await (async () => {
      const laterKey = 'double-answer-late';
      const laterReceived = client.ask({ key: laterKey, questions: benchArgs.questions });
      const id = await channel.next(laterKey);
      await ingress.resolveAwakeable(id, answerFor('first'));
      await laterReceived;
      return id;
    })();
    const late = await ingress.resolveAwakeable(idAfter, answerFor('late')).then(
      () => 'accepted',
      (error: unknown) => `rejected: ${String(error)}`,
    );
    const details = {
      concurrentResolveA: statusOf(resolutions[0]),
      concurrentResolveB: statusOf(resolutions[1]),
      handlerReceived: receivedText(received),
      resolveAfterFinish: late,
    };
    const summary =
      `two concurrent resolutions of one awakeable were both ${details.concurrentResolveA === details.concurrentResolveB ? details.concurrentResolveA : `${details.concurrentResolveA} / ${details.concurrentResolveB}`}; ` +
      `the handler received only ${details.handlerReceived.includes('answerer A') ? 'A' : 'B'}, and neither answerer learns which one won; ` +
      `resolving the awakeable of a finished handler was ${late}`;
    return { summary, details };
  };
  return { ...workload, doubleAnswer };
}
