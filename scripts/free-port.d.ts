/** Types of `scripts/free-port.js`: a free port of 127.0.0.1, below the system's ephemeral range. */

export declare const HOST: '127.0.0.1';
/** The lowest port {@link freePort} hands out. */
export declare const PICK_FROM: number;
/** The highest port {@link freePort} hands out. */
export declare const PICK_TO: number;

/** True when `port` of 127.0.0.1 can be bound now. */
export declare function canBind(port: number): Promise<boolean>;

/**
 * A port of 127.0.0.1 from {@link PICK_FROM} to {@link PICK_TO} that was free a moment ago and is not in
 * `exclude`.
 */
export declare function freePort(exclude?: Set<number>): Promise<number>;
