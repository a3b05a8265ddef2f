/**
 * Where the Temporal server is: read through `@temporalio/envconfig`, so the standard `TEMPORAL_*` variables
 * and config profiles (TLS, API keys for Temporal Cloud) work the same for the worker, the client and the CLI.
 */
import { DEFAULT_TASK_QUEUE } from '../question/definitions';

export {
  loadTemporalSettings,
  type LoadTemporalSettingsOptions,
  type TemporalSettings,
} from './temporal-settings';

/** Task queue from `ASK_USER_TASK_QUEUE`, else `ask-user-question`. */
export function taskQueueFromEnv(env: Record<string, string | undefined> = process.env): string {
  const value = env.ASK_USER_TASK_QUEUE?.trim();
  return value === undefined || value === '' ? DEFAULT_TASK_QUEUE : value;
}
