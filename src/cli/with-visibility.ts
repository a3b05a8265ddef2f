/**
 * A visibility reader for one reading command: connected from the `TEMPORAL_*` environment with the same
 * settings as `withClient`, closed when the command is done. It loads neither `@temporalio/client` with its
 * generated protobuf types nor `@grpc/grpc-js` (its calls go over `node:http2`): loading them would cost a
 * one-page list more than its request.
 */
import { unavailableToAnswer } from '../connection/connect-failure';
import { questionSummaryOf, type ServerPage, type ServerPageReader } from '../ops/question-listing';
import { loadTemporalSettings } from '../connection/temporal-settings';
import { VisibilityReader } from '../temporal/visibility-reader';

/** Server pages of questions through `reader`, for `listQuestionPage`. */
export function questionPages(reader: VisibilityReader): ServerPageReader {
  return async (query, pageSize, serverToken): Promise<ServerPage> => {
    const page = await reader.listWorkflowExecutions({
      query,
      pageSize,
      nextPageToken: Buffer.from(serverToken, 'base64'),
    });
    const summaries = page.executions.map(questionSummaryOf);
    return page.nextPageToken.length === 0
      ? { summaries }
      : { summaries, nextPageToken: page.nextPageToken.toString('base64') };
  };
}

/**
 * Opens a reader from the environment, runs `fn` with a reader of server pages of questions, closes it.
 *
 * @throws QuestionOperationError `UNAVAILABLE` (`cannot reach Temporal at <address>: <reason>`).
 */
export async function withVisibility<T>(fn: (readPage: ServerPageReader) => Promise<T>): Promise<T> {
  const settings = loadTemporalSettings();
  const { apiKey, tls, metadata } = settings.connectionOptions;
  const reader = await VisibilityReader.connect(
    {
      address: settings.address,
      namespace: settings.namespace,
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(tls === undefined ? {} : { tls }),
      ...(metadata === undefined ? {} : { metadata }),
    },
    unavailableToAnswer,
  );
  try {
    return await fn(questionPages(reader));
  } finally {
    reader.close();
  }
}
