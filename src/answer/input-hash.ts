/**
 * The SHA-256 of a tool call's input, as a decision binds it: the hash of the input's canonical JSON (RFC 8785,
 * the JSON Canonicalization Scheme: sorted keys, one spelling per number and string), so two inputs hash alike
 * exactly when they are the same JSON value, whatever their key order or spacing.
 *
 * Workflow-safe: the workflow records the hash of what a decision approved, and the wrapper hashes what it is
 * about to run, with the same two libraries (pure JavaScript, no Node built-ins).
 */
import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';
import canonicalize from 'canonicalize';

/** The canonical JSON text of `value` (RFC 8785); `undefined` and functions have none, so they are refused. */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('the input is not a JSON value');
  return text;
}

/** The lowercase hex SHA-256 of the canonical JSON of `value`. */
export function inputSha256(value: unknown): string {
  return bytesToHex(sha256(utf8ToBytes(canonicalJson(value))));
}

/** Whether `a` and `b` are the same JSON value (compared in canonical form). */
export function sameJson(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}
