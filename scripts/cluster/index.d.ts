/** Types of `scripts/cluster/index.js`: the production-like cluster behind `npm run cluster` and `test/cluster/`. */
import type { ChildProcess } from 'node:child_process';

/** The default data folder: `.data/cluster` in the checkout. */
export declare const DEFAULT_DATA_DIR: string;

/** Options of {@link startCluster}. */
export interface ClusterOptions {
  /**
   * Where PostgreSQL's database, the saved ports, the server's environment and both logs live. Default
   * {@link DEFAULT_DATA_DIR}. Starting again on the same folder keeps its questions and reuses its ports.
   */
  dataDir?: string;
  /** The frontend's gRPC port. Default: the one saved in the data folder, else a free one. */
  port?: number;
  /** Progress lines: what was built or found, and each process as it is ready. Default: nowhere. */
  log?: (line: string) => void;
  /** Called with every process as soon as it is spawned (PostgreSQL, the server), before it is ready. */
  onSpawn?: (child: ChildProcess) => void;
  /** Called when PostgreSQL or the server exits without being asked to, with what exited and where its log is. */
  onUnexpectedExit?: (message: string) => void;
}

/** A running cluster. Every stop signals the process by its id and waits until it has exited. */
export interface Cluster {
  /** `127.0.0.1:<port>`, for `TEMPORAL_ADDRESS`. */
  address: string;
  /** The namespace docker-compose.yml creates (`default`). */
  namespace: string;
  dataDir: string;
  /** PostgreSQL's database: `<dataDir>/postgres`, or a folder of the temporary directory when PostgreSQL's account cannot reach `dataDir`. */
  postgresDataDir: string;
  /** Every port: `postgres` and the server's, by the name of the variable its configuration reads. */
  ports: Record<string, number>;
  /** The server version docker-compose.yml pins. */
  temporalVersion: string;
  /** The major version of the PostgreSQL found. */
  postgresMajor: string;
  /** Seconds this start spent building the server, or undefined when the build was cached. */
  buildSeconds: number | undefined;
  /** The ids of the processes running now; undefined for one that is stopped. */
  readonly pids: { postgres: number | undefined; server: number | undefined };
  /** Stops the server, then PostgreSQL. */
  stop(): Promise<void>;
  /** Stops the server (SIGTERM, then SIGKILL after 30 s). */
  stopServer(): Promise<void>;
  /** Starts the server again on the same ports, and resolves once it is healthy and the namespace answers. */
  startServer(): Promise<void>;
  /** Stops PostgreSQL (a fast shutdown, then SIGKILL after 30 s). */
  stopPostgres(): Promise<void>;
  /** Starts PostgreSQL again on the same data folder and port, and resolves once it accepts connections. */
  startPostgres(): Promise<void>;
}

/** Builds or finds the server, starts PostgreSQL and the server, and makes sure of the namespace. */
export declare function startCluster(options?: ClusterOptions): Promise<Cluster>;
