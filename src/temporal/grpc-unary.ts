/**
 * Unary gRPC calls over `node:http2`, for a command that sends a request or two and exits (`ask-user list`).
 * `@grpc/grpc-js` costs such a command about 50 ms just to load, a quarter of its run; a unary call is one HTTP/2
 * stream: a POST whose body is the length-prefixed message, and a reply whose trailers carry the status
 * (https://github.com/grpc/grpc/blob/master/doc/PROTOCOL-HTTP2.md). Streaming calls, compression, proxies and
 * load balancing are left out: whoever needs them uses `@temporalio/client`.
 *
 * What it keeps from grpc-js, so a reader built on it behaves as the SDK's connection does: errors with the
 * numeric `code` and the `details` of the status, worded `<code> <NAME>: <details>`; a connect that retries
 * until its deadline; and the SDK's retry policy for transient failures (`@temporalio/client`'s
 * `defaultGrpcRetryOptions`: up to 10 attempts, backoff ×1.7 from 100 ms, from 1 s after `RESOURCE_EXHAUSTED`,
 * at most 5 s, ±20 % jitter).
 */
import * as http2 from 'node:http2';
import { setTimeout as sleep } from 'node:timers/promises';

import { GrpcStatus } from '../connection/grpc-status';

const STATUS_NAMES = new Map<number, string>(Object.entries(GrpcStatus).map(([name, code]) => [code, name]));

/** A call that ended with a status other than OK: `code` and `details` as grpc-js names them. */
export class GrpcCallError extends Error {
  constructor(
    readonly code: number,
    readonly details: string,
    options?: { cause?: unknown },
  ) {
    super(`${code} ${STATUS_NAMES.get(code) ?? 'UNKNOWN'}: ${details}`, options);
    this.name = 'GrpcCallError';
  }
}

/** TLS for the channel; absent for plaintext. */
export interface GrpcTlsOptions {
  /** Root certificates to trust instead of Node's bundled ones. */
  ca?: Buffer;
  /** Client certificate and key, for mutual TLS. */
  cert?: Buffer;
  key?: Buffer;
  /** The name the server's certificate is checked against, sent as SNI and as `:authority`. */
  serverName?: string;
}

/** Where and how to connect. */
export interface GrpcChannelOptions {
  /** `host:port`, IPv6 hosts in brackets. */
  address: string;
  tls?: GrpcTlsOptions;
  /** Headers every call carries. A `Buffer` value goes base64-encoded, under a key ending in `-bin`. */
  metadata?: Record<string, string | Buffer>;
  /** Largest reply accepted. Default 128 MiB, the limit the SDK's connection sets. */
  maxReceiveBytes?: number;
}

const MAX_ATTEMPTS = 10;
const DEFAULT_MAX_RECEIVE_BYTES = 128 * 1024 * 1024;
/** grpc-js's reconnect backoff: the connect is retried after 1 s, then ×1.6, until the deadline. */
const RECONNECT_INITIAL_MS = 1_000;
const RECONNECT_FACTOR = 1.6;

/**
 * A channel of unary calls over one HTTP/2 session, opened again when the server closes it.
 *
 * @example
 * const channel = new GrpcChannel({ address: 'localhost:7233' });
 * try {
 *   await channel.connect(Date.now() + 10_000);
 *   const reply = await channel.unary('/temporal.api.workflowservice.v1.WorkflowService/GetSystemInfo', Buffer.alloc(0));
 * } finally {
 *   channel.close();
 * }
 */
export class GrpcChannel {
  private session: http2.ClientHttp2Session | undefined;
  private closed = false;
  private readonly authority: string;
  private readonly headers: http2.OutgoingHttpHeaders;

  constructor(private readonly options: GrpcChannelOptions) {
    const scheme = options.tls === undefined ? 'http' : 'https';
    this.authority = `${scheme}://${options.address}`;
    this.headers = {
      'content-type': 'application/grpc',
      te: 'trailers',
      'grpc-accept-encoding': 'identity',
      'user-agent': 'durable-ask-user',
    };
    const serverName = options.tls?.serverName;
    if (serverName) this.headers[':authority'] = serverName;
    for (const [key, value] of Object.entries(options.metadata ?? {})) {
      const name = key.toLowerCase();
      if (typeof value === 'string') this.headers[name] = value;
      else if (name.endsWith('-bin')) this.headers[name] = value.toString('base64');
      else throw new TypeError(`metadata ${JSON.stringify(key)}: a binary value needs a key ending in -bin`);
    }
  }

  /**
   * Opens the session, trying again (as grpc-js does while a channel waits for ready) until `deadline`.
   *
   * @throws GrpcCallError `UNAVAILABLE` with the last reason when no attempt connected in time
   */
  async connect(deadline: number): Promise<void> {
    let delayMs = RECONNECT_INITIAL_MS;
    for (;;) {
      try {
        await this.open(deadline);
        return;
      } catch (error) {
        const remaining = deadline - Date.now();
        if (this.closed || remaining <= delayMs) {
          throw new GrpcCallError(
            GrpcStatus.UNAVAILABLE,
            `failed to connect before the deadline: ${messageOf(error)}`,
            {
              cause: error,
            },
          );
        }
        await sleep(delayMs);
        delayMs *= RECONNECT_FACTOR;
      }
    }
  }

  /**
   * One unary call: `body` is the encoded request message, the result the encoded reply. Transient failures are
   * sent again under the SDK's retry policy.
   *
   * @param path `/<package>.<Service>/<Method>`
   * @param headers extra headers of this call
   * @param deadline epoch milliseconds; the call fails `DEADLINE_EXCEEDED` past it (retries included)
   * @throws GrpcCallError with the status the call ended with
   */
  async unary(
    path: string,
    body: Buffer,
    headers: Record<string, string> = {},
    deadline?: number,
  ): Promise<Buffer> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.attempt(path, body, headers, deadline);
      } catch (error) {
        if (!(error instanceof GrpcCallError) || attempt >= MAX_ATTEMPTS || !isRetryable(error)) throw error;
        const delayMs = retryDelayMs(attempt, error.code);
        if (this.closed || (deadline !== undefined && Date.now() + delayMs >= deadline)) throw error;
        await sleep(delayMs);
      }
    }
  }

  /** Closes the session; calls in flight end `CANCELLED`. */
  close(): void {
    this.closed = true;
    this.session?.destroy();
    this.session = undefined;
  }

  /** The open session, or a new one once the previous one closed. */
  private open(deadline?: number): Promise<http2.ClientHttp2Session> {
    const current = this.session;
    if (current !== undefined && !current.closed && !current.destroyed) {
      return current.connecting ? connected(current, deadline) : Promise.resolve(current);
    }
    if (this.closed) return Promise.reject(new GrpcCallError(GrpcStatus.CANCELLED, 'the channel is closed'));
    const { tls } = this.options;
    const session = http2.connect(
      this.authority,
      tls === undefined
        ? {}
        : {
            ...(tls.ca === undefined ? {} : { ca: tls.ca }),
            ...(tls.cert === undefined ? {} : { cert: tls.cert }),
            ...(tls.key === undefined ? {} : { key: tls.key }),
            ...(tls.serverName ? { servername: tls.serverName } : {}),
          },
    );
    // Errors reach the calls through their streams and `connected`; without a listener they would crash the process.
    session.on('error', () => undefined);
    session.once('close', () => {
      if (this.session === session) this.session = undefined;
    });
    this.session = session;
    return connected(session, deadline);
  }

  private async attempt(
    path: string,
    body: Buffer,
    headers: Record<string, string>,
    deadline: number | undefined,
  ): Promise<Buffer> {
    let session: http2.ClientHttp2Session;
    try {
      session = await this.open(deadline);
    } catch (error) {
      if (error instanceof GrpcCallError) throw error;
      throw new GrpcCallError(GrpcStatus.UNAVAILABLE, messageOf(error), { cause: error });
    }
    const requestHeaders: http2.OutgoingHttpHeaders = {
      ...this.headers,
      ...headers,
      ':method': 'POST',
      ':path': path,
    };
    if (deadline !== undefined) requestHeaders['grpc-timeout'] = `${Math.max(1, deadline - Date.now())}m`;
    const frame = Buffer.allocUnsafe(5 + body.length);
    frame.writeUInt8(0, 0);
    frame.writeUInt32BE(body.length, 1);
    body.copy(frame, 5);
    return new Promise<Buffer>((resolve, reject) => {
      const stream = session.request(requestHeaders, { endStream: false });
      const reply = new ReplyReader(this.options.maxReceiveBytes ?? DEFAULT_MAX_RECEIVE_BYTES);
      let settled = false;
      const finish = (error: GrpcCallError | undefined, message?: Buffer): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (!stream.closed) stream.close(http2.constants.NGHTTP2_CANCEL);
        if (error === undefined) resolve(message ?? Buffer.alloc(0));
        else reject(error);
      };
      const timer =
        deadline === undefined
          ? undefined
          : setTimeout(
              () => finish(new GrpcCallError(GrpcStatus.DEADLINE_EXCEEDED, 'Deadline exceeded')),
              Math.max(0, deadline - Date.now()),
            );
      let status: http2.IncomingHttpHeaders | undefined;
      stream.on('response', (responseHeaders) => {
        const httpStatus = Number(responseHeaders[':status']);
        if (httpStatus !== 200) {
          finish(new GrpcCallError(statusOfHttp(httpStatus), `Received HTTP status code ${httpStatus}`));
        } else if (responseHeaders['grpc-status'] !== undefined) {
          // A trailers-only reply: the status arrives with the headers.
          status = responseHeaders;
        }
      });
      stream.on('trailers', (trailers: http2.IncomingHttpHeaders) => {
        status = trailers;
      });
      stream.on('data', (chunk: Buffer) => {
        const failure = reply.push(chunk);
        if (failure !== undefined) finish(failure);
      });
      stream.on('error', (error: Error) =>
        finish(new GrpcCallError(statusOfStreamError(error), messageOf(error), { cause: error })),
      );
      stream.on('close', () => {
        if (status === undefined) {
          const code = stream.rstCode;
          finish(
            new GrpcCallError(
              code === http2.constants.NGHTTP2_REFUSED_STREAM ? GrpcStatus.UNAVAILABLE : GrpcStatus.INTERNAL,
              code === undefined || code === 0
                ? 'Call ended without gRPC status'
                : `Received RST_STREAM with code ${code}`,
            ),
          );
          return;
        }
        const code = Number(status['grpc-status']);
        if (code !== GrpcStatus.OK) {
          finish(
            new GrpcCallError(Number.isInteger(code) ? code : GrpcStatus.UNKNOWN, grpcMessageOf(status)),
          );
          return;
        }
        const message = reply.message();
        if (message instanceof GrpcCallError) finish(message);
        else finish(undefined, message);
      });
      stream.end(frame);
    });
  }
}

/** Collects the length-prefixed messages of a unary reply: exactly one, uncompressed, within the size limit. */
class ReplyReader {
  private readonly chunks: Buffer[] = [];
  private received = 0;

  constructor(private readonly maxBytes: number) {}

  /** Takes a chunk; returns the failure once the reply is larger than allowed. */
  push(chunk: Buffer): GrpcCallError | undefined {
    this.received += chunk.length;
    this.chunks.push(chunk);
    if (this.received > this.maxBytes + 5) {
      return new GrpcCallError(
        GrpcStatus.RESOURCE_EXHAUSTED,
        `Received message larger than max (${this.received - 5} vs. ${this.maxBytes})`,
      );
    }
    return undefined;
  }

  /** The one message of the reply, or why it cannot be read. */
  message(): Buffer | GrpcCallError {
    const bytes = Buffer.concat(this.chunks);
    if (bytes.length < 5) return new GrpcCallError(GrpcStatus.UNIMPLEMENTED, 'the reply holds no message');
    if (bytes.readUInt8(0) !== 0) {
      return new GrpcCallError(
        GrpcStatus.INTERNAL,
        'the reply is compressed, and no compression was offered',
      );
    }
    const length = bytes.readUInt32BE(1);
    if (bytes.length !== 5 + length) {
      return new GrpcCallError(
        GrpcStatus.INTERNAL,
        `the reply holds ${bytes.length - 5} bytes, its prefix says ${length}`,
      );
    }
    return bytes.subarray(5);
  }
}

/** Resolves once `session` has connected (TLS handshake included); rejects with its error or at `deadline`. */
function connected(session: http2.ClientHttp2Session, deadline?: number): Promise<http2.ClientHttp2Session> {
  if (!session.connecting) return Promise.resolve(session);
  return new Promise((resolve, reject) => {
    const timer =
      deadline === undefined
        ? undefined
        : setTimeout(
            () => {
              cleanup();
              session.destroy();
              reject(new GrpcCallError(GrpcStatus.DEADLINE_EXCEEDED, 'Deadline exceeded while connecting'));
            },
            Math.max(0, deadline - Date.now()),
          );
    const onConnect = (): void => {
      cleanup();
      resolve(session);
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    const onClose = (): void => {
      cleanup();
      reject(new Error('the connection closed before it was established'));
    };
    function cleanup(): void {
      clearTimeout(timer);
      session.off('connect', onConnect);
      session.off('error', onError);
      session.off('close', onClose);
    }
    session.once('connect', onConnect);
    session.once('error', onError);
    session.once('close', onClose);
  });
}

/** The SDK's `isRetryableError`, with its reasoning on `INTERNAL`. */
function isRetryable(error: GrpcCallError): boolean {
  switch (error.code) {
    case GrpcStatus.UNKNOWN:
    case GrpcStatus.RESOURCE_EXHAUSTED:
    case GrpcStatus.UNAVAILABLE:
    case GrpcStatus.ABORTED:
    case GrpcStatus.DATA_LOSS:
    case GrpcStatus.OUT_OF_RANGE:
      return true;
    case GrpcStatus.INTERNAL:
      // A reply without a status (a proxy that does not speak gRPC) or a generic HTTP/2 reset may pass on a new
      // attempt; TLS alerts and malformed replies will not.
      if (/RST_STREAM with code 0|Call ended without gRPC status/i.test(error.details)) return true;
      return /RST_STREAM with code 2/i.test(error.details) && !/SSL alert number/i.test(error.details);
    default:
      return false;
  }
}

/** The SDK's default backoff before attempt `attempt + 1`. */
function retryDelayMs(attempt: number, code: number): number {
  const initialMs = code === GrpcStatus.RESOURCE_EXHAUSTED ? 1_000 : 100;
  const jitter = 1 - 0.2 + Math.random() * 0.4;
  return Math.min(5_000, 1.7 ** attempt * initialMs) * jitter;
}

/** gRPC's mapping of an HTTP status that is not 200 (PROTOCOL-HTTP2.md, "HTTP to gRPC Status Code Mapping"). */
function statusOfHttp(httpStatus: number): number {
  switch (httpStatus) {
    case 400:
      return GrpcStatus.INTERNAL;
    case 401:
      return GrpcStatus.UNAUTHENTICATED;
    case 403:
      return GrpcStatus.PERMISSION_DENIED;
    case 404:
      return GrpcStatus.UNIMPLEMENTED;
    case 429:
    case 502:
    case 503:
    case 504:
      return GrpcStatus.UNAVAILABLE;
    default:
      return GrpcStatus.UNKNOWN;
  }
}

/** A stream that failed below gRPC: a lost connection is `UNAVAILABLE`, as grpc-js reports it. */
function statusOfStreamError(error: Error): number {
  const code = (error as { code?: unknown }).code;
  return code === 'ERR_HTTP2_STREAM_CANCEL' ? GrpcStatus.CANCELLED : GrpcStatus.UNAVAILABLE;
}

/** `grpc-message`, percent-decoded. */
function grpcMessageOf(headers: http2.IncomingHttpHeaders): string {
  const raw = headers['grpc-message'];
  const text = Array.isArray(raw) ? raw.join(',') : (raw ?? '');
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
