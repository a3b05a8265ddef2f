/**
 * `VisibilityReader`: lists workflow executions from Temporal's visibility store, for commands that only read a
 * list and exit (`ask-user list`). `@temporalio/client` loads the generated protobuf types of the whole Temporal
 * API before it can send one request, and `@grpc/grpc-js` takes about 50 ms to load, which costs such a command
 * more than its request does; this reader sends its calls over `node:http2` (`grpc-unary.ts`), encodes the one
 * request and decodes the few response fields a list shows (`protobuf-wire.ts`).
 *
 * It connects as `Connection.connect` does, through the same SDK code where that code is a leaf module: the
 * address and TLS normalisation, the SDK's retry policy (in `grpc-unary.ts`), the API key as a bearer token, the
 * extra metadata, the `temporal-namespace` header, and a `GetSystemInfo` handshake whose failure is reported as a
 * failure to connect. It leaves out the SDK's `client-name` and `client-version` headers, which the server checks
 * against the SDK's releases: this reader is not the SDK. Memos are decoded as the SDK's default payload
 * converter decodes them (what a `Client` without a custom data converter does): `json/plain`, `binary/plain`
 * and `binary/null`, with the same errors for anything else. Its own UTF-8 decoder is written for the workflow
 * sandbox and costs a cold process more than the whole request, so `Buffer` decodes here.
 */
import { normalizeGrpcEndpointAddress } from '@temporalio/common/lib/internal-non-workflow/parse-host-uri';
import {
  normalizeTlsConfig,
  type TLSConfigOption,
} from '@temporalio/common/lib/internal-non-workflow/tls-config';
import { reasonOf } from '../connection/failure-reason';
import { GrpcStatus } from '../connection/grpc-status';
import { GrpcChannel, type GrpcTlsOptions } from './grpc-unary';
import { WireReader, WireWriter } from './protobuf-wire';

const SERVICE = '/temporal.api.workflowservice.v1.WorkflowService';
const DEFAULT_PORT = 7233;

/** Where to connect: the fields of `TemporalSettings['connectionOptions']` that a client connection reads. */
export interface VisibilityReaderOptions {
  address: string;
  namespace: string;
  tls?: TLSConfigOption;
  apiKey?: string;
  /** Extra headers of every call, as the SDK's `metadata` option (a `Buffer` value under a `-bin` key). */
  metadata?: Record<string, string | Buffer>;
  /** How long to try to connect. Default 10 s, as `Connection.connect`. */
  connectTimeoutMs?: number;
}

/** Builds the error for a server that cannot be reached (see `connect.ts`). */
export type VisibilityConnectFailure = (address: string, reason: string, cause: unknown) => Error;

/** A workflow execution as visibility lists it: what a question list shows. */
export interface VisibleExecution {
  workflowId: string;
  runId: string;
  type: string;
  /** The SDK's status names (`RUNNING`, `COMPLETED`, `CANCELLED`, ...), as `WorkflowExecutionInfo.status`. */
  status: { code: number; name: string };
  startTime: Date;
  closeTime?: Date;
  /** The memo, decoded; absent when the execution has none. */
  memo?: Record<string, unknown>;
}

/** One page of `ListWorkflowExecutions`. */
export interface VisibilityPage {
  executions: VisibleExecution[];
  /** The server's token for the next page; empty on the last page. */
  nextPageToken: Buffer;
}

/** `temporal.api.enums.v1.WorkflowExecutionStatus` by number, named as `@temporalio/client` names them. */
const STATUS_NAMES: readonly string[] = [
  'UNSPECIFIED',
  'RUNNING',
  'COMPLETED',
  'FAILED',
  'CANCELLED',
  'TERMINATED',
  'CONTINUED_AS_NEW',
  'TIMED_OUT',
  'PAUSED',
];

/** A channel as `Connection.connect` configures one (see the SDK's `normalizeGRPCConfig`). */
function openChannel(options: VisibilityReaderOptions): GrpcChannel {
  const metadata: Record<string, string | Buffer> = { ...options.metadata };
  if (options.apiKey) {
    if (options.metadata?.['Authorization'] !== undefined) {
      throw new TypeError(
        'Both `apiKey` option and `Authorization` header were provided, but only one makes sense to use at a time.',
      );
    }
    metadata['Authorization'] = `Bearer ${options.apiKey}`;
  }
  const tls = normalizeTlsConfig(options.tls, options.apiKey);
  let channelTls: GrpcTlsOptions | undefined;
  if (tls !== undefined) {
    const buffer = (bytes: Uint8Array | undefined): Buffer | undefined =>
      bytes === undefined ? undefined : Buffer.from(bytes);
    channelTls = {};
    const ca = buffer(tls.serverRootCACertificate);
    const cert = buffer(tls.clientCertPair?.crt);
    const key = buffer(tls.clientCertPair?.key);
    if (ca !== undefined) channelTls.ca = ca;
    if (cert !== undefined) channelTls.cert = cert;
    if (key !== undefined) channelTls.key = key;
    if (tls.serverNameOverride) channelTls.serverName = tls.serverNameOverride;
  }
  return new GrpcChannel({
    address: normalizeGrpcEndpointAddress(options.address, DEFAULT_PORT),
    ...(channelTls === undefined ? {} : { tls: channelTls }),
    metadata,
  });
}

/**
 * A connection that lists workflow executions.
 *
 * @example
 * const reader = await VisibilityReader.connect({ address: 'localhost:7233', namespace: 'default' }, fail);
 * try {
 *   const page = await reader.listWorkflowExecutions({ query: "ExecutionStatus = 'Running'", pageSize: 20 });
 * } finally {
 *   reader.close();
 * }
 */
export class VisibilityReader {
  private constructor(
    private readonly channel: GrpcChannel,
    private readonly namespace: string,
    /** Settles once the server has answered `GetSystemInfo`; rejects with the connect failure. */
    private readonly handshake: Promise<void>,
  ) {}

  /**
   * Opens a connection, trying until the connect timeout, as `Connection.connect` does.
   *
   * @throws the error `failure` builds, naming the address as configured, when the options are invalid or the
   *   server cannot be reached within the connect timeout
   */
  static async connect(
    options: VisibilityReaderOptions,
    failure: VisibilityConnectFailure,
  ): Promise<VisibilityReader> {
    let channel: GrpcChannel | undefined;
    const deadline = Date.now() + (options.connectTimeoutMs ?? 10_000);
    try {
      channel = openChannel(options);
      await channel.connect(deadline);
    } catch (error) {
      channel?.close();
      throw failure(options.address, reasonOf(error), error);
    }
    // The SDK's connect asks for the server's system info before any call. Here the handshake runs alongside the
    // first request instead of before it (no extra round trip), and its failure is still the one reported.
    const handshake = channel.unary(`${SERVICE}/GetSystemInfo`, Buffer.alloc(0), {}, deadline).then(
      () => undefined,
      (error: unknown) => {
        if ((error as { code?: unknown }).code === GrpcStatus.UNIMPLEMENTED) return; // a server that predates it
        const connectError = new Error('Failed to connect to Temporal server', { cause: error });
        throw failure(options.address, reasonOf(connectError), connectError);
      },
    );
    handshake.catch(() => undefined);
    return new VisibilityReader(channel, options.namespace, handshake);
  }

  /**
   * One page of `ListWorkflowExecutions`.
   *
   * @throws the connect failure when the handshake failed; otherwise the gRPC error of the call (a
   *   `GrpcCallError`, with its numeric `code`), or a `WireFormatError` for a response this reader cannot read
   */
  async listWorkflowExecutions(request: {
    query: string;
    pageSize: number;
    nextPageToken?: Uint8Array;
  }): Promise<VisibilityPage> {
    const body = new WireWriter()
      .string(1, this.namespace)
      .uint(2, request.pageSize)
      .bytes(3, request.nextPageToken ?? new Uint8Array())
      .string(4, request.query)
      .finish();
    // Namespaced requests carry the namespace as a header too, as the SDK sends it (Temporal Cloud routes on it).
    const call = this.channel.unary(`${SERVICE}/ListWorkflowExecutions`, body, {
      'temporal-namespace': this.namespace,
    });
    call.catch(() => undefined);
    await this.handshake;
    return decodeListResponse(await call);
  }

  /** Closes the connection. */
  close(): void {
    this.channel.close();
  }
}

function decodeListResponse(message: Buffer): VisibilityPage {
  const executions: VisibleExecution[] = [];
  let nextPageToken = Buffer.alloc(0);
  const reader = new WireReader(message);
  while (reader.next()) {
    if (reader.field === 1) executions.push(decodeExecutionInfo(reader.message()));
    else if (reader.field === 2) nextPageToken = Buffer.from(reader.bytes());
  }
  return { executions, nextPageToken };
}

/** `temporal.api.workflow.v1.WorkflowExecutionInfo`, the fields a list shows. */
function decodeExecutionInfo(reader: WireReader): VisibleExecution {
  let workflowId = '';
  let runId = '';
  let type = '';
  let statusCode = 0;
  let startTime: Date | undefined;
  let closeTime: Date | undefined;
  let memo: Record<string, unknown> | undefined;
  while (reader.next()) {
    switch (reader.field) {
      case 1: {
        // execution: WorkflowExecution { workflow_id = 1; run_id = 2 }
        const execution = reader.message();
        while (execution.next()) {
          if (execution.field === 1) workflowId = execution.string();
          else if (execution.field === 2) runId = execution.string();
        }
        break;
      }
      case 2: {
        // type: WorkflowType { name = 1 }
        const workflowType = reader.message();
        while (workflowType.next()) if (workflowType.field === 1) type = workflowType.string();
        break;
      }
      case 3:
        startTime = decodeTimestamp(reader.message());
        break;
      case 4:
        closeTime = decodeTimestamp(reader.message());
        break;
      case 5:
        statusCode = reader.uint();
        break;
      case 10:
        memo = decodeMemo(reader.message());
        break;
    }
  }
  // The SDK refuses an execution without a start time the same way (`requiredTsToDate`).
  if (startTime === undefined) throw new TypeError('Expected startTime to be a timestamp, got undefined');
  const execution: VisibleExecution = {
    workflowId,
    runId,
    type,
    status: { code: statusCode, name: STATUS_NAMES[statusCode] ?? 'UNKNOWN' },
    startTime,
  };
  if (closeTime !== undefined) execution.closeTime = closeTime;
  if (memo !== undefined) execution.memo = memo;
  return execution;
}

/** `google.protobuf.Timestamp { int64 seconds = 1; int32 nanos = 2 }`, to the millisecond as the SDK does. */
function decodeTimestamp(reader: WireReader): Date {
  let seconds = 0;
  let nanos = 0;
  while (reader.next()) {
    if (reader.field === 1) seconds = reader.uint();
    else if (reader.field === 2) nanos = reader.uint();
  }
  return new Date(seconds * 1000 + Math.floor(nanos / 1_000_000));
}

/** `temporal.api.common.v1.Memo { map<string, Payload> fields = 1 }`, decoded value by value. */
function decodeMemo(reader: WireReader): Record<string, unknown> {
  const memo: Record<string, unknown> = {};
  while (reader.next()) {
    if (reader.field !== 1) continue;
    const entry = reader.message();
    let key = '';
    let value: unknown;
    while (entry.next()) {
      if (entry.field === 1) key = entry.string();
      else if (entry.field === 2) value = decodePayload(entry.message());
    }
    memo[key] = value;
  }
  return memo;
}

/**
 * `temporal.api.common.v1.Payload { map<string, bytes> metadata = 1; bytes data = 2 }`, converted as the SDK's
 * `DefaultPayloadConverter` converts it, with its error messages.
 */
function decodePayload(reader: WireReader): unknown {
  let encoding: string | undefined;
  let data: Buffer | undefined;
  while (reader.next()) {
    if (reader.field === 1) {
      const entry = reader.message();
      let key = '';
      let value = '';
      while (entry.next()) {
        if (entry.field === 1) key = entry.string();
        else if (entry.field === 2) value = entry.string();
      }
      if (key === 'encoding') encoding = value;
    } else if (reader.field === 2) {
      data = reader.bytes();
    }
  }
  switch (encoding) {
    case 'json/plain':
      // proto3 sends no empty bytes field; the SDK reads that as empty data and fails to parse it, as here.
      return JSON.parse((data ?? Buffer.alloc(0)).toString('utf8'));
    case 'binary/plain':
      return new Uint8Array(data ?? Buffer.alloc(0));
    case 'binary/null':
      return undefined;
    default:
      throw new PayloadDecodeError(`Unknown encoding: ${encoding ?? ''}`);
  }
}

/** A memo value that the default payload converter cannot read (a custom converter or codec wrote it). */
export class PayloadDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ValueError';
  }
}
