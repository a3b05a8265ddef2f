/**
 * The classifier of failed server calls on the errors grpc-js and the SDK raise: which mean "not answering right
 * now, retry" and which are final. The CANCELLED cases come from a flood of starts past what the server could
 * take: it reset calls at their deadline ("Call cancelled"), which must be retried like DEADLINE_EXCEEDED.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Metadata, status } from '@grpc/grpc-js';
import { ServiceError } from '@temporalio/client';

import { isDeadlineExceeded, isTransient } from '../../src/connection/grpc-failures';

/** A failed call as grpc-js rejects it: `<code> <NAME>: <details>`, with `code`, `details` and `metadata`. */
function grpcError(code: number, details: string): Error {
  const name = status[code] ?? 'UNKNOWN';
  return Object.assign(new Error(`${code} ${name}: ${details}`), { code, details, metadata: new Metadata() });
}

/** As the SDK's client wraps it (`Failed to start Workflow`, the gRPC error as the cause). */
function wrapped(error: Error): ServiceError {
  return new ServiceError('Failed to start Workflow', { cause: error });
}

test("CANCELLED is the server's deadline (transient) only when the server reset the call, not when this process cancelled it", () => {
  // [case, error, transient, a deadline that ran out]
  const cases: [string, Error, boolean, boolean][] = [
    ['reset by the server', grpcError(status.CANCELLED, 'Call cancelled'), true, true],
    ['cancelled on client', grpcError(status.CANCELLED, 'Cancelled on client'), false, false],
    ['channel shut down', grpcError(status.CANCELLED, 'Channel has been shut down'), false, false],
    ['deadline exceeded', grpcError(status.DEADLINE_EXCEEDED, 'Deadline exceeded after 15.001s'), true, true],
    ['unavailable', grpcError(status.UNAVAILABLE, 'No connection established'), true, false],
    ['invalid argument', grpcError(status.INVALID_ARGUMENT, 'WorkflowId is not set'), false, false],
    [
      'already exists',
      grpcError(status.ALREADY_EXISTS, 'Workflow execution is already running'),
      false,
      false,
    ],
  ];
  for (const [name, error, transient, deadline] of cases) {
    assert.equal(isTransient(error), transient, `raw: ${name}`);
    assert.equal(isTransient(wrapped(error)), transient, `wrapped by the SDK: ${name}`);
    assert.equal(isDeadlineExceeded(error), deadline, `deadline, raw: ${name}`);
    assert.equal(isDeadlineExceeded(wrapped(error)), deadline, `deadline, wrapped by the SDK: ${name}`);
  }
});
