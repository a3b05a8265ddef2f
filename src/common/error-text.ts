/**
 * One way to turn any thrown value into text. Imports nothing: workflow code and the short-lived CLI use it.
 */

/**
 * The text that explains any thrown value: an error's message (also for errors from another realm, such as
 * the workflow sandbox), else the value as a string. Never throws, not even for values `String()` refuses
 * (`Object.create(null)`).
 */
export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'object' && error !== null) {
    const { message } = error as { message?: unknown };
    if (typeof message === 'string') return message;
  }
  try {
    return String(error);
  } catch {
    return Object.prototype.toString.call(error);
  }
}

/** `text` cut to `maxLength` characters, ending in `...` when cut: for reasons that may quote hostile input. */
export function truncated(text: string, maxLength: number): string {
  return text.length > maxLength ? `${text.slice(0, maxLength - 3)}...` : text;
}
