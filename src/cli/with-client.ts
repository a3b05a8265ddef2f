/** A client for one command: connected from the `TEMPORAL_*` environment, closed when the command is done. */
import type { Client } from '@temporalio/client';
import { connectToTemporal, unavailableToAnswer } from '../connection/connect';

/**
 * Opens a client from the environment (the package's one way to connect), runs `fn`, closes the connection.
 *
 * @throws QuestionOperationError `ASK_UNAVAILABLE` (`cannot reach Temporal at <address>: <reason>`).
 */
export async function withClient<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const { client, connection } = await connectToTemporal({}, unavailableToAnswer);
  try {
    return await fn(client);
  } finally {
    await connection.close();
  }
}
