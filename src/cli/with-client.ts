/** A client for one command: connected from the `TEMPORAL_*` environment, closed when the command is done. */
import { Client, Connection } from '@temporalio/client';
import { loadTemporalSettings } from '../temporal/connection-config';

/** Opens a client from the environment, runs `fn`, closes the connection. */
export async function withClient<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const settings = loadTemporalSettings();
  let connection: Connection;
  try {
    connection = await Connection.connect({
      ...settings.connectionOptions,
      connectTimeout: 10_000,
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`cannot reach Temporal at ${settings.address}: ${reason}`, { cause: error });
  }
  try {
    return await fn(new Client({ connection, namespace: settings.namespace }));
  } finally {
    await connection.close();
  }
}
