/**
 * The worker's payload converter: Temporal's default one, except that a payload it cannot decode (an unknown
 * `encoding`, missing metadata, broken JSON) becomes an `UndecodablePayload` value instead of an exception.
 *
 * Why: signals and updates are decoded inside the workflow, and the default converter throws on a bad payload.
 * A thrown decoding error fails the workflow task, and because the malformed signal stays in the history, every
 * retry fails the same way: one `temporal workflow signal --input-meta encoding=binary/x-oops` from anyone with
 * namespace access would jam the question for good. With this converter the handler receives the stand-in,
 * `checkAnswer` refuses it (`undecodable`), and the question stays answerable.
 *
 * Encoding is unchanged (the default converter's), so clients and the stock Temporal CLI need nothing special.
 * Loaded by path (`dataConverter.payloadConverterPath`), in the workflow sandbox as well as in Node: it imports
 * only `@temporalio/common` and dependency-free modules.
 */
import {
  defaultPayloadConverter,
  type ConverterHint,
  type Payload,
  type PayloadConverter,
  type SerializationContext,
} from '@temporalio/common';
import type { UndecodablePayload } from '../answer/undecodable-payload';
import { errorText, truncated } from '../common';

/** Reasons are cut to this many characters: a decoding error may quote the hostile payload itself. */
const MAX_REASON_LENGTH = 200;

/** The default payload converter, with decoding failures turned into `UndecodablePayload` values. */
export class TolerantPayloadConverter implements PayloadConverter {
  constructor(private readonly inner: PayloadConverter = defaultPayloadConverter) {}

  toPayload<T>(value: T, context?: SerializationContext, hint?: ConverterHint<T>): Payload {
    return this.inner.toPayload(value, context, hint);
  }

  fromPayload<T>(payload: Payload, context?: SerializationContext, hint?: ConverterHint<T>): T {
    try {
      return this.inner.fromPayload<T>(payload, context, hint);
    } catch (error) {
      const undecodable: UndecodablePayload = { undecodable: truncated(errorText(error), MAX_REASON_LENGTH) };
      return undecodable as T;
    }
  }
}

/** The instance the SDK loads from `payloadConverterPath`: the export must be named `payloadConverter`. */
export const payloadConverter: PayloadConverter = new TolerantPayloadConverter();
