/**
 * The events of one 2025-11-25 HTTP session, kept so that a dropped SSE stream can be resumed: the client
 * reconnects with `Last-Event-ID` and the SDK's transport replays what it missed (the progress of a waiting
 * call, a form, the call's result). Implements the SDK's `EventStore`.
 *
 * In memory, bounded: a call that waits an hour sends a progress notification every few seconds, so only the
 * latest events are kept; a client that comes back later than that resumes from what is left, and a result
 * that was never sent is sent when the call ends. The session itself lives in this process only, so the
 * events need not outlive it.
 */
import type { EventId, EventStore, JSONRPCMessage, StreamId } from '@modelcontextprotocol/server';

/** How many events one session keeps. */
const MAX_EVENTS = 1_000;

export class McpSessionEventStore implements EventStore {
  /** Events in the order they were stored; a Map keeps insertion order. */
  private readonly events = new Map<EventId, { streamId: StreamId; message: JSONRPCMessage }>();
  private sequence = 0;

  storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    this.sequence += 1;
    // The sequence orders the ids; the stream id makes them name their stream.
    const eventId = `${this.sequence}:${streamId}`;
    this.events.set(eventId, { streamId, message });
    if (this.events.size > MAX_EVENTS) this.events.delete(this.events.keys().next().value!);
    return Promise.resolve(eventId);
  }

  getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return Promise.resolve(this.events.get(eventId)?.streamId);
  }

  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const last = this.events.get(lastEventId);
    if (last === undefined) return '';
    let after = false;
    for (const [eventId, { streamId, message }] of [...this.events]) {
      if (eventId === lastEventId) after = true;
      else if (after && streamId === last.streamId) await send(eventId, message);
    }
    return last.streamId;
  }
}
