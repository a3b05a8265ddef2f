export {
  ensureTemporalCliInstalled,
  findTemporalCli,
  projectRoot,
  temporalExecutable,
  type FindTemporalCliOptions,
  type TemporalExecutable,
} from './temporal-cli';
export { startDevServer, type DevServer, type DevServerOptions } from './dev-server-process';
