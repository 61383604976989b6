import { type EventSourceMessage, createParser } from 'eventsource-parser';

// Where a stream's events end in its bytes, so that recap can hold a reply back from the first
// byte of the event where it starts calling tools, and no earlier: the bytes before go out as they
// came. Each chunk is fed to the stream's parser (eventsource-parser) a line at a time, so each
// event's end is known to the byte; bytes past the last complete event wait for the next chunk
// (an event split across two reads is written whole, once complete), so a held reply never begins
// inside an event the client has already started reading.

export interface SplitEvent {
  event: EventSourceMessage;
  /** Just past the event's last byte, in `data`. */
  end: number;
}

export interface EventSplitter {
  /** The bytes not yet passed on and `chunk` after them, with the events that end in them. */
  feed(chunk: Buffer): { data: Buffer; events: SplitEvent[] };
  /** `data` from `from` on waits for the next chunk. */
  keep(data: Buffer, from: number): void;
  /** What still waits once the stream ended. */
  rest(): Buffer;
}

const LF = 0x0a;

export function eventSplitter(): EventSplitter {
  const parsed: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => parsed.push(e) });
  const decoder = new TextDecoder();
  let pending: Buffer = Buffer.alloc(0);
  return {
    feed(chunk) {
      const base = pending.length;
      const data = base > 0 ? Buffer.concat([pending, chunk]) : chunk;
      pending = Buffer.alloc(0);
      const events: SplitEvent[] = [];
      for (let at = 0; at < chunk.length; ) {
        const lf = chunk.indexOf(LF, at);
        const end = lf === -1 ? chunk.length : lf + 1;
        // A line feed is never inside a UTF-8 sequence; the decoder keeps one cut by a chunk's end.
        parser.feed(decoder.decode(chunk.subarray(at, end), { stream: true }));
        for (const event of parsed.splice(0)) events.push({ event, end: base + end });
        at = end;
      }
      return { data, events };
    },
    keep(data, from) {
      pending = data.subarray(from);
    },
    rest: () => pending,
  };
}
