/** Connecting to the Temporal server: settings from the environment, the connection, failure classification. */
export { connectToTemporal, type ConnectOptions, type TemporalConnection } from './connect';
export {
  loadTemporalSettings,
  taskQueueFromEnv,
  type LoadTemporalSettingsOptions,
  type TemporalSettings,
} from './connection-config';
