/**
 * The protobuf wire format, as far as the visibility reader needs it: writing a message of strings, integers and
 * bytes, and walking the fields of a received message. Loading `@temporalio/proto` (the SDK's generated types for
 * the whole Temporal API) costs a short-lived command more than the rest of its run, and reading a list needs
 * only a handful of fields. See https://protobuf.dev/programming-guides/encoding/.
 */

/** Wire types of protobuf fields. */
export const WireType = { VARINT: 0, FIXED64: 1, LENGTH_DELIMITED: 2, FIXED32: 5 } as const;

/** A malformed message: the reader stops rather than guess. */
export class WireFormatError extends Error {
  constructor(message: string) {
    super(`malformed protobuf message: ${message}`);
    this.name = 'WireFormatError';
  }
}

/** Builds one message, field by field; fields equal to their default are left out, as proto3 does. */
export class WireWriter {
  private readonly chunks: Buffer[] = [];

  /** A `string` field. */
  string(field: number, value: string): this {
    if (value !== '') this.bytes(field, Buffer.from(value, 'utf8'));
    return this;
  }

  /** A `bytes` (or embedded message) field. */
  bytes(field: number, value: Uint8Array): this {
    if (value.length === 0) return this;
    this.tag(field, WireType.LENGTH_DELIMITED);
    this.varint(value.length);
    this.chunks.push(Buffer.from(value.buffer, value.byteOffset, value.length));
    return this;
  }

  /** An `int32`, `int64`, `uint32` or `enum` field holding a non-negative integer. */
  uint(field: number, value: number): this {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new RangeError(`field ${field}: ${value} is not a non-negative safe integer`);
    }
    if (value === 0) return this;
    this.tag(field, WireType.VARINT);
    this.varint(value);
    return this;
  }

  /** The encoded message. */
  finish(): Buffer {
    return Buffer.concat(this.chunks);
  }

  private tag(field: number, wireType: number): void {
    this.varint(field * 8 + wireType);
  }

  private varint(value: number): void {
    const bytes: number[] = [];
    let rest = value;
    while (rest >= 0x80) {
      bytes.push((rest % 0x80) | 0x80);
      rest = Math.floor(rest / 0x80);
    }
    bytes.push(rest);
    this.chunks.push(Buffer.from(bytes));
  }
}

/** One field of a received message. */
export type WireField =
  | { field: number; wireType: typeof WireType.VARINT; value: number }
  | { field: number; wireType: typeof WireType.LENGTH_DELIMITED; value: Buffer }
  | { field: number; wireType: typeof WireType.FIXED64 | typeof WireType.FIXED32; value: Buffer };

/**
 * The fields of `message` in wire order. Unknown fields are returned like any other, for the caller to skip: newer
 * servers add fields, and a reader must not fail on them.
 *
 * @throws WireFormatError when the message is cut short or uses the deprecated group encoding
 */
export function* wireFields(message: Buffer): Generator<WireField> {
  let offset = 0;
  const readVarint = (): number => {
    let value = 0;
    let scale = 1;
    for (;;) {
      if (offset >= message.length) throw new WireFormatError('a varint runs past the end');
      const byte = message[offset++]!;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 0x80;
      // Ten bytes hold any 64-bit value; a negative int32 or int64 takes all ten.
      if (scale > 2 ** 70) throw new WireFormatError('a varint is longer than ten bytes');
    }
  };
  const take = (length: number): Buffer => {
    if (offset + length > message.length) throw new WireFormatError('a field runs past the end');
    const value = message.subarray(offset, offset + length);
    offset += length;
    return value;
  };
  while (offset < message.length) {
    const tag = readVarint();
    const field = Math.floor(tag / 8);
    const wireType = tag % 8;
    if (field === 0) throw new WireFormatError('field number 0');
    switch (wireType) {
      case WireType.VARINT:
        yield { field, wireType, value: readVarint() };
        break;
      case WireType.LENGTH_DELIMITED:
        yield { field, wireType, value: take(readVarint()) };
        break;
      case WireType.FIXED64:
        yield { field, wireType, value: take(8) };
        break;
      case WireType.FIXED32:
        yield { field, wireType, value: take(4) };
        break;
      default:
        throw new WireFormatError(`unsupported wire type ${wireType} in field ${field}`);
    }
  }
}
