/**
 * What the worker's payload converter hands to workflow code in place of a payload it cannot decode (an
 * unknown encoding, broken JSON): a plain value, so a malformed signal or update from anyone with namespace
 * access is refused or recorded like any other bad input, instead of failing every workflow task.
 *
 * Workflow-safe and dependency-free.
 */
export interface UndecodablePayload {
  /** Why decoding failed. */
  undecodable: string;
}

/** True for the converter's stand-in for an undecodable payload. */
export function isUndecodablePayload(value: unknown): value is UndecodablePayload {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { undecodable?: unknown }).undecodable === 'string' &&
    Object.keys(value).length === 1
  );
}
