/**
 * Sizes of text: code points (what the contract's character limits count, as zod does) and bytes as Temporal
 * stores them (the UTF-8 length of a value's JSON text). Dependency-free and
 * deterministic (no `Buffer`, no `TextEncoder`), so it runs in the workflow sandbox too.
 */

/** The UTF-8 length of `text`, counting each unpaired surrogate as the 3 bytes a replacement character takes. */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(index + 1))) {
      bytes += 4;
      index++;
    } else bytes += 3;
  }
  return bytes;
}

/** The number of Unicode code points in `text`: a surrogate pair counts once, an unpaired surrogate once. */
export function codePointLength(text: string): number {
  let length = text.length;
  for (let index = 0; index < text.length - 1; index++) {
    const code = text.charCodeAt(index);
    if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(index + 1))) {
      length--;
      index++;
    }
  }
  return length;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * The UTF-8 length of `JSON.stringify(value)`, or `undefined` when the value has no JSON text (`undefined`, a
 * function) or cannot be serialised (a cycle, a `BigInt`).
 */
export function jsonByteLength(value: unknown): number | undefined {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return undefined;
  }
  return text === undefined ? undefined : utf8ByteLength(text);
}
