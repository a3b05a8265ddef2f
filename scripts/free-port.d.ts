/** Types of `scripts/free-port.js`: a free port of 127.0.0.1, below the system's ephemeral range. */

export declare const HOST: '127.0.0.1';

/** A port of 127.0.0.1 from 20000 to 32767 that was free a moment ago and is not in `exclude`. */
export declare function freePort(exclude?: Set<number>): Promise<number>;
