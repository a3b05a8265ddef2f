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

/**
 * Walks the fields of a received message, in wire order, without copying: `next()` moves to a field, then one
 * of the readers takes its value (a field whose value is not read is skipped by the next `next()`). Unknown fields
 * are there for the caller to skip: newer servers add fields, and a reader must not fail on them.
 *
 * @example
 * const reader = new WireReader(message);
 * while (reader.next()) {
 *   if (reader.field === 1) name = reader.string();
 * }
 */
export class WireReader {
  /** The number of the current field. */
  field = 0;
  /** The wire type of the current field. */
  wireType = 0;
  private offset: number;
  /** Where the current field's value starts, or -1 once it has been read. */
  private valueStart = -1;

  constructor(
    private readonly buffer: Buffer,
    start = 0,
    private readonly end = buffer.length,
  ) {
    this.offset = start;
  }

  /**
   * Moves to the next field; false at the end of the message.
   *
   * @throws WireFormatError when the message is cut short or uses the deprecated group encoding
   */
  next(): boolean {
    if (this.valueStart !== -1) this.skip();
    if (this.offset >= this.end) return false;
    const tag = this.varint();
    this.field = Math.floor(tag / 8);
    this.wireType = tag % 8;
    if (this.field === 0) throw new WireFormatError('field number 0');
    this.valueStart = this.offset;
    return true;
  }

  /** The value of a varint field (`int32`, `int64`, `uint32`, `bool`, `enum`) that fits a safe integer. */
  uint(): number {
    this.expect(WireType.VARINT);
    return this.varint();
  }

  /** The value of a `bytes` field, as a view on the message (not a copy). */
  bytes(): Buffer {
    const [start, end] = this.lengthDelimited();
    return this.buffer.subarray(start, end);
  }

  /** The value of a `string` field. */
  string(): string {
    const [start, end] = this.lengthDelimited();
    return this.buffer.toString('utf8', start, end);
  }

  /** A reader of the embedded message in the current field. */
  message(): WireReader {
    const [start, end] = this.lengthDelimited();
    return new WireReader(this.buffer, start, end);
  }

  private skip(): void {
    switch (this.wireType) {
      case WireType.VARINT:
        this.varint();
        break;
      case WireType.LENGTH_DELIMITED:
        this.lengthDelimited();
        break;
      case WireType.FIXED64:
        this.advance(8);
        break;
      case WireType.FIXED32:
        this.advance(4);
        break;
      default:
        throw new WireFormatError(`unsupported wire type ${this.wireType} in field ${this.field}`);
    }
    this.valueStart = -1;
  }

  private expect(wireType: number): void {
    if (this.valueStart === -1)
      throw new WireFormatError(`the value of field ${this.field} was already read`);
    if (this.wireType !== wireType) {
      throw new WireFormatError(`field ${this.field} has wire type ${this.wireType}, not ${wireType}`);
    }
    this.valueStart = -1;
  }

  private lengthDelimited(): [number, number] {
    this.expect(WireType.LENGTH_DELIMITED);
    const length = this.varint();
    const start = this.offset;
    this.advance(length);
    return [start, this.offset];
  }

  private advance(length: number): void {
    if (this.offset + length > this.end) throw new WireFormatError('a field runs past the end');
    this.offset += length;
  }

  private varint(): number {
    let value = 0;
    let scale = 1;
    for (;;) {
      if (this.offset >= this.end) throw new WireFormatError('a varint runs past the end');
      const byte = this.buffer[this.offset++]!;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 0x80;
      // Ten bytes hold any 64-bit value; a negative int32 or int64 takes all ten.
      if (scale > 2 ** 70) throw new WireFormatError('a varint is longer than ten bytes');
    }
  }
}
