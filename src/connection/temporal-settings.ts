/**
 * Where the Temporal server is, read through `@temporalio/envconfig` alone: the standard `TEMPORAL_*` variables
 * and config profiles (TLS, API keys for Temporal Cloud). Kept apart from the task queue and the workflow
 * definitions so that a reading command (`ask-user list`) loads no workflow-side module to learn an address.
 */
import { definedFields } from '../common';
import { loadClientConnectConfig } from '@temporalio/envconfig';

/** Resolved connection settings. */
export interface TemporalSettings {
  address: string;
  namespace: string;
  /** Options for `Connection.connect` / `NativeConnection.connect`: address, TLS, API key, metadata. */
  connectionOptions: ReturnType<typeof loadClientConnectConfig>['connectionOptions'];
}

/** Options for `loadTemporalSettings`. */
export interface LoadTemporalSettingsOptions {
  /** Config profile name; default from `TEMPORAL_PROFILE`, else `default`. */
  profile?: string;
  /** Environment to read instead of `process.env`. */
  env?: Record<string, string | undefined>;
}

/**
 * Loads the connection settings from the environment and config file. Defaults: `localhost:7233`,
 * namespace `default`.
 */
export function loadTemporalSettings(options: LoadTemporalSettingsOptions = {}): TemporalSettings {
  const env = options.env ?? process.env;
  const overrideEnvVars = Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  const config = loadClientConnectConfig(definedFields({ profile: options.profile, overrideEnvVars }));
  const address = config.connectionOptions.address ?? 'localhost:7233';
  // Unset fields are dropped, not kept as `undefined`: the connection options are spread into both the
  // client's `Connection.connect` and the worker's `NativeConnection.connect`.
  const connectionOptions = definedFields({
    ...config.connectionOptions,
    address,
  }) as TemporalSettings['connectionOptions'];
  return { address, namespace: config.namespace ?? 'default', connectionOptions };
}
