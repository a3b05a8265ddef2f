/**
 * A client whose connection records the status of every update attempt it makes (`UpdateWorkflowExecution`, and
 * `ExecuteMultiOperation`, which carries an update with start), each retry of the SDK's connection included: for
 * tests of how many updates an ops client sends, and what the server answered them.
 */
import * as grpc from '@grpc/grpc-js';
import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';

/** A client in `default` of the server at `address`; `statuses` fills as its update calls end. Close `connection`. */
export async function connectRecordingUpdates(
  address: string,
): Promise<{ client: Client; connection: Connection; statuses: grpc.status[] }> {
  const statuses: grpc.status[] = [];
  const recordUpdates: grpc.Interceptor = (options, nextCall) =>
    new grpc.InterceptingCall(nextCall(options), {
      start(metadata, _listener, next) {
        next(metadata, {
          onReceiveStatus(status, nextStatus) {
            if (/\/(UpdateWorkflowExecution|ExecuteMultiOperation)$/.test(options.method_definition.path))
              statuses.push(status.code);
            nextStatus(status);
          },
        });
      },
    });
  // Inside the SDK's retry interceptor, as the connection's default one: every attempt is seen.
  const connection = await Connection.connect({
    address,
    interceptors: [makeGrpcRetryInterceptor(defaultGrpcRetryOptions()), recordUpdates],
  });
  return { client: new Client({ connection, namespace: 'default' }), connection, statuses };
}
