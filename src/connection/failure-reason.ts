/**
 * The text of a failure and its causes, for error messages. Dependency-free, so a short-lived command can word
 * its errors without loading `@temporalio/client` (which `grpc-failures.ts` needs for its classifiers).
 */
import { errorText } from '../common';

/** The message of an error and of its causes, joined, for error texts and the classifiers in `grpc-failures`. */
export function reasonOf(error: unknown): string {
  const parts: string[] = [];
  for (let current = error, depth = 0; current !== undefined && depth < 4; depth++) {
    const text = errorText(current);
    if (text !== '' && !parts.includes(text)) parts.push(text);
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.join(': ');
}
