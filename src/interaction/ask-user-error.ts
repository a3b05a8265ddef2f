/**
 * The base of every error this package throws: a stable `code`, a message built from the fields that explain
 * it, and a cross-realm `isInstance`. Errors cross the workflow sandbox, test runners' realms and duplicate
 * copies of the package in one `node_modules`, where `instanceof` fails; a registry-wide symbol does not.
 *
 * Dependency-free, so workflow code and any runtime can import it.
 */

const baseMarker = Symbol.for('durable-ask-user.AskUserError');

/**
 * An error of durable-ask-user. Subclasses: `UserInteractionError` (the seam, what the model sees),
 * `QuestionOperationError` (the answering side) and the CLI's usage error.
 *
 * @example
 * try {
 *   await questions.answer(id, answer);
 * } catch (error) {
 *   if (AskUserError.isInstance(error)) console.error(error.code, error.message);
 *   else throw error;
 * }
 */
export class AskUserError<Code extends string = string> extends Error {
  readonly code: Code;
  private readonly [baseMarker] = true;

  constructor(code: Code, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
  }

  /** True for any error of this package, from any copy of it. */
  static isInstance(value: unknown): value is AskUserError {
    return hasMarker(value, baseMarker);
  }
}

/** Whether `value` carries `marker`: the cross-realm check each subclass's `isInstance` makes. */
export function hasMarker(value: unknown, marker: symbol): boolean {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
}
