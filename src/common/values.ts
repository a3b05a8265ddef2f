/**
 * Small value helpers every folder shares. Imports nothing, so workflow code, the tool-only entry and the
 * browser-free CLI can all use them.
 */

/** A JSON-style object: not `null`, not an array. What every reader of untrusted input checks first. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value`'s fields without those that are `undefined`. */
export type DefinedFields<T extends object> = { [K in keyof T]: Exclude<T[K], undefined> };

/**
 * `value` without the fields that are `undefined`: the shared types say "absent" with exact optional
 * properties (`exactOptionalPropertyTypes`), where a caller or a zod output says "absent or undefined". One call
 * replaces a chain of `...(x === undefined ? {} : { x })`.
 */
export function definedFields<T extends object>(value: T): DefinedFields<T> {
  return Object.fromEntries(
    Object.entries(value).filter(([, field]) => field !== undefined),
  ) as DefinedFields<T>;
}
