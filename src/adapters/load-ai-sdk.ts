/**
 * `ai`, the optional peer dependency of the AI SDK adapters, loaded on first use rather than when an adapter
 * module is, so the `durable-ask-user/ai` entry loads without it.
 */
import type * as AiSdk from 'ai';
import { UserInteractionError } from '../interaction/user-interaction-error';

let aiSdk: typeof AiSdk | undefined;

/**
 * The `ai` module; `owner` (the function that needs it) is named in the error when it is not installed.
 *
 * @throws UserInteractionError `INVALID_OPTIONS` when `ai` is not installed.
 */
export function loadAiSdk(owner: string): typeof AiSdk {
  if (aiSdk !== undefined) return aiSdk;
  try {
    // A plain `require` (this package is CommonJS): `import()` would also load it lazily, but asynchronously.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    aiSdk = require('ai') as typeof AiSdk;
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND';
    if (!missing) throw error;
    throw UserInteractionError.invalidSetting(
      `${owner} needs the \`ai\` package, version 6 or 7: npm install ai`,
      error,
    );
  }
  return aiSdk;
}
