/**
 * `VisibilityReader` (what `ask-user list` reads through) over its own HTTP/2 gRPC calls, against a real dev
 * server: plainly, and through a TLS front on loopback (mutual TLS, a certificate for another host name, the
 * way a Temporal server behind an ingress is reached). The front forwards every call to the dev server as it
 * came and records what it saw, so the tests check the headers the SDK would send (API key, namespace,
 * metadata, authority), the client certificate, and the SDK's retry policy on transient failures.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import type { TLSSocket } from 'node:tls';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import type { TestWorkflowEnvironment } from '@temporalio/testing';

import { unavailableToAnswer } from '../../src/connection/connect-failure';
import { GrpcCallError } from '../../src/temporal/grpc-unary';
import { VisibilityReader, type VisibilityReaderOptions } from '../../src/temporal/visibility-reader';
import { ASK_USER_QUESTION_WORKFLOW_TYPE } from '../../src/question/definitions';
import { startTestEnvironment } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

const QUERY = `WorkflowType = '${ASK_USER_QUESTION_WORKFLOW_TYPE}'`;
const SERVER_NAME = 'temporal.test';
const LIST_PATH = '/temporal.api.workflowservice.v1.WorkflowService/ListWorkflowExecutions';

interface Certificates {
  ca: Buffer;
  serverCert: Buffer;
  serverKey: Buffer;
  clientCert: Buffer;
  clientKey: Buffer;
  /** A CA that signed none of these. */
  otherCa: Buffer;
}

/** A CA, a server certificate for `temporal.test` and a client certificate, made with openssl in `directory`. */
function makeCertificates(directory: string): Certificates {
  const file = (name: string): string => path.join(directory, name);
  const openssl = (...args: string[]): void => void execFileSync('openssl', args, { stdio: 'pipe' });
  const selfSigned = (name: string, subject: string): void =>
    openssl(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      subject,
      '-keyout',
      file(`${name}.key`),
      '-out',
      file(`${name}.pem`),
    );
  const signed = (name: string, subject: string, extensions: string): void => {
    openssl(
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-subj',
      subject,
      '-keyout',
      file(`${name}.key`),
      '-out',
      file(`${name}.csr`),
    );
    fs.writeFileSync(file(`${name}.ext`), extensions);
    openssl(
      'x509',
      '-req',
      '-in',
      file(`${name}.csr`),
      '-CA',
      file('ca.pem'),
      '-CAkey',
      file('ca.key'),
      '-CAcreateserial',
      '-days',
      '2',
      '-extfile',
      file(`${name}.ext`),
      '-out',
      file(`${name}.pem`),
    );
  };
  selfSigned('ca', '/CN=ask-user test CA');
  selfSigned('other-ca', '/CN=another CA');
  signed('server', `/CN=${SERVER_NAME}`, `subjectAltName=DNS:${SERVER_NAME}\nextendedKeyUsage=serverAuth\n`);
  signed('client', '/CN=ask-user-test-client', 'extendedKeyUsage=clientAuth\n');
  const read = (name: string): Buffer => fs.readFileSync(file(name));
  return {
    ca: read('ca.pem'),
    serverCert: read('server.pem'),
    serverKey: read('server.key'),
    clientCert: read('client.pem'),
    clientKey: read('client.key'),
    otherCa: read('other-ca.pem'),
  };
}

/** One call as the front received it. */
interface SeenCall {
  headers: http2.IncomingHttpHeaders;
  /** The common name of the client certificate it presented. */
  clientName: string | undefined;
}

/**
 * A TLS front on loopback that asks for a client certificate signed by `ca` and forwards each call to the dev
 * server at `upstreamAddress`. `failNext` calls to a path are answered `UNAVAILABLE` by the front itself.
 */
async function startTlsFront(certificates: Certificates, upstreamAddress: string) {
  const upstream = http2.connect(`http://${upstreamAddress}`);
  upstream.on('error', () => undefined);
  const seen: SeenCall[] = [];
  const failNext = new Map<string, number>();
  const server = http2.createSecureServer({
    key: certificates.serverKey,
    cert: certificates.serverCert,
    ca: certificates.ca,
    requestCert: true,
    rejectUnauthorized: true,
  });
  server.on('stream', (stream, headers) => {
    const socket = stream.session?.socket as TLSSocket | undefined;
    const clientName = socket?.getPeerCertificate().subject?.CN;
    seen.push({ headers, clientName: typeof clientName === 'string' ? clientName : undefined });
    const path = String(headers[':path']);
    const failures = failNext.get(path) ?? 0;
    if (failures > 0) {
      failNext.set(path, failures - 1);
      stream.resume();
      const busy = {
        'content-type': 'application/grpc',
        'grpc-status': '14',
        'grpc-message': 'front%20busy',
      };
      stream.respond({ ':status': 200, ...busy }, { endStream: true });
      return;
    }
    const forwarded: http2.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(headers)) {
      if (name !== ':authority' && name !== ':scheme') forwarded[name] = value;
    }
    const call = upstream.request(forwarded);
    stream.pipe(call);
    let trailers: http2.IncomingHttpHeaders = {};
    call.on('response', (replyHeaders, flags) => {
      const endStream = (flags & http2.constants.NGHTTP2_FLAG_END_STREAM) !== 0;
      stream.respond(
        withoutPseudo(replyHeaders, true),
        endStream ? { endStream } : { waitForTrailers: true },
      );
    });
    call.on('trailers', (received: http2.IncomingHttpHeaders) => (trailers = received));
    stream.on('wantTrailers', () => stream.sendTrailers(withoutPseudo(trailers, false)));
    call.pipe(stream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    address: `127.0.0.1:${port}`,
    seen,
    failNext,
    close: async () => {
      upstream.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function withoutPseudo(headers: http2.IncomingHttpHeaders, keepStatus: boolean): http2.OutgoingHttpHeaders {
  const result: http2.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!name.startsWith(':') || (keepStatus && name === ':status')) result[name] = value;
  }
  return result;
}

async function readAll(options: VisibilityReaderOptions): Promise<string[]> {
  const reader = await VisibilityReader.connect(options, unavailableToAnswer);
  try {
    const page = await reader.listWorkflowExecutions({ query: QUERY, pageSize: 100 });
    return page.executions.map((execution) => `${execution.workflowId} ${execution.status.name}`).sort();
  } finally {
    reader.close();
  }
}

let env: TestWorkflowEnvironment;
let directory: string;
let certificates: Certificates;
let front: Awaited<ReturnType<typeof startTlsFront>>;
const workflowIds = ['ask-user-question/tls/one', 'ask-user-question/tls/two', 'ask-user-question/tls/three'];

before(async () => {
  env = await startTestEnvironment();
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'visibility-reader-'));
  certificates = makeCertificates(directory);
  front = await startTlsFront(certificates, env.address);
  for (const workflowId of workflowIds) {
    // No worker: the questions stay Running, which is all a list needs.
    await env.client.workflow.start(ASK_USER_QUESTION_WORKFLOW_TYPE, {
      workflowId,
      taskQueue: 'visibility-reader-no-worker',
      args: [{ questions: [{ id: 'q', question: `${workflowId}?` }] }],
      memo: {
        title: `${workflowId}?`,
        questionCount: 1,
        status: 'pending',
        askedAt: new Date().toISOString(),
      },
    });
  }
});

after(async () => {
  await front?.close();
  await env?.teardown();
  if (directory !== undefined) fs.rmSync(directory, { recursive: true, force: true });
});

describe('VisibilityReader', () => {
  const expected = workflowIds.map((workflowId) => `${workflowId} RUNNING`).sort();

  test('plaintext: lists the running questions', async () => {
    const plain = { address: env.address, namespace: 'default' };
    await waitFor('the three questions listed', async () =>
      (await readAll(plain)).length === 3 ? true : undefined,
    );
    assert.deepEqual(await readAll({ address: env.address, namespace: 'default' }), expected);
  });

  test('through a TLS front: the same rows, with the client certificate, API key, metadata and authority', async () => {
    front.seen.length = 0;
    const rows = await readAll({
      address: front.address,
      namespace: 'default',
      apiKey: 'key-123',
      metadata: { 'X-Team': 'ops', 'trace-bin': Buffer.from([1, 2, 3]) },
      tls: {
        serverNameOverride: SERVER_NAME,
        serverRootCACertificate: certificates.ca,
        clientCertPair: { crt: certificates.clientCert, key: certificates.clientKey },
      },
    });
    assert.deepEqual(rows, expected);
    const list = front.seen.find((call) => call.headers[':path'] === LIST_PATH);
    assert.ok(list !== undefined, 'the front saw the list call');
    assert.equal(list.clientName, 'ask-user-test-client');
    assert.equal(list.headers[':authority'], SERVER_NAME);
    assert.equal(list.headers['authorization'], 'Bearer key-123');
    assert.equal(list.headers['temporal-namespace'], 'default');
    assert.equal(list.headers['x-team'], 'ops');
    assert.equal(list.headers['trace-bin'], Buffer.from([1, 2, 3]).toString('base64'));
    assert.equal(list.headers['content-type'], 'application/grpc');
    const handshake = front.seen.find((call) => String(call.headers[':path']).endsWith('/GetSystemInfo'));
    assert.ok(handshake !== undefined, 'the GetSystemInfo handshake went through the front');
    assert.equal(handshake.headers['temporal-namespace'], undefined);
  });

  test('a call the front refuses as UNAVAILABLE is sent again under the SDK retry policy', async () => {
    front.seen.length = 0;
    front.failNext.set(LIST_PATH, 2);
    const rows = await readAll({
      address: front.address,
      namespace: 'default',
      tls: {
        serverNameOverride: SERVER_NAME,
        serverRootCACertificate: certificates.ca,
        clientCertPair: { crt: certificates.clientCert, key: certificates.clientKey },
      },
    });
    assert.deepEqual(rows, expected);
    assert.equal(front.seen.filter((call) => call.headers[':path'] === LIST_PATH).length, 3);
  });

  test('a request the server refuses fails at once with its gRPC status, not retried', async () => {
    const reader = await VisibilityReader.connect(
      { address: env.address, namespace: 'default' },
      unavailableToAnswer,
    );
    try {
      const error = await reader.listWorkflowExecutions({ query: 'NoSuchField = 1', pageSize: 10 }).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      assert.ok(error instanceof GrpcCallError, String(error));
      assert.equal(error.code, 3);
      assert.match(error.message, /^3 INVALID_ARGUMENT: .*NoSuchField/);
    } finally {
      reader.close();
    }
  });

  test('TLS failures are failures to connect, naming the address and the reason', async () => {
    const tls = {
      serverRootCACertificate: certificates.ca,
      clientCertPair: { crt: certificates.clientCert, key: certificates.clientKey },
    };
    const cases: [string, VisibilityReaderOptions['tls'], RegExp][] = [
      [
        'no server name override: the certificate is for another host',
        tls,
        /altnames|does not match|Hostname/i,
      ],
      [
        'a CA that did not sign the server certificate',
        { ...tls, serverNameOverride: SERVER_NAME, serverRootCACertificate: certificates.otherCa },
        /self.signed|unable to verify|certificate/i,
      ],
      [
        'no client certificate',
        { serverNameOverride: SERVER_NAME, serverRootCACertificate: certificates.ca },
        /certificate|alert|socket|closed|reset/i,
      ],
    ];
    for (const [name, options, reason] of cases) {
      const error = await VisibilityReader.connect(
        {
          address: front.address,
          namespace: 'default',
          connectTimeoutMs: 1_500,
          ...(options === undefined ? {} : { tls: options }),
        },
        unavailableToAnswer,
      ).then(
        async (reader) => {
          // A refused client certificate surfaces on the first call (TLS 1.3 sends the alert after the handshake).
          try {
            await reader.listWorkflowExecutions({ query: QUERY, pageSize: 1 });
            return undefined;
          } catch (failure) {
            return failure;
          } finally {
            reader.close();
          }
        },
        (failure: unknown) => failure,
      );
      assert.ok(error instanceof Error, `${name}: no error`);
      assert.match(
        error.message,
        new RegExp(`^cannot reach Temporal at ${front.address.replace(/\./g, '\\.')}: `),
        name,
      );
      assert.match(error.message, reason, name);
    }
  });

  test('a server that is not there: cannot reach it, once the connect timeout has run out', async () => {
    const closed = http2.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const startedAt = Date.now();
    const error = await VisibilityReader.connect(
      { address: `127.0.0.1:${port}`, namespace: 'default', connectTimeoutMs: 1_500 },
      unavailableToAnswer,
    ).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    assert.ok(error instanceof Error, 'no error');
    assert.match(
      error.message,
      new RegExp(`^cannot reach Temporal at 127\\.0\\.0\\.1:${port}: .*ECONNREFUSED`),
    );
    // It tried again (after 1 s, as grpc-js would) before giving up.
    assert.ok(Date.now() - startedAt >= 1_000, `gave up after ${Date.now() - startedAt} ms`);
  });
});
