import type { IncomingHttpHeaders } from 'node:http';
import { type EventSourceMessage, createParser } from 'eventsource-parser';

// A 2xx event stream is a turn the client received whole only when it ended as its API says a
// successful stream ends. An upstream that fails once its headers are out can say so only in-band
// (chat: `data: {"error":…}` and no `[DONE]`; Responses: an `error` event and no
// `response.completed`), and the connection then ends cleanly: without this, such a turn would
// store its checkpoint. Each route says which events end its streams (chat/stream-end.ts,
// wire/responses/stream-end.ts); the judge reads the chunks as they pass, never holding or altering one.

/** What one event says of its stream: it ended successfully, it failed, or neither. */
export type StreamVerdict = 'success' | 'failure' | undefined;

/** A route's reading of one event of its streams. */
export type StreamEndRule = (event: EventSourceMessage) => StreamVerdict;

export interface StreamEndJudge {
  feed(chunk: Buffer): void;
  /** Whether the stream so far ended successfully: its first telling event said so. */
  succeeded(): boolean;
}

export function isEventStream(headers: IncomingHttpHeaders): boolean {
  return String(headers['content-type'] ?? '').includes('text/event-stream');
}

/**
 * Judges a stream by `rule`. The first telling event decides, as for the OpenAI SDKs: they stop
 * reading at `[DONE]` and raise at an error event, so nothing after either changes what the client
 * got. An event cut off by the end of the stream is not one (the SSE rule).
 */
export function judgeStreamEnd(rule: StreamEndRule): StreamEndJudge {
  // A streaming decoder: a multi-byte character can be split across two chunks.
  const decoder = new TextDecoder();
  let verdict: StreamVerdict;
  const parser = createParser({
    onEvent(event) {
      verdict ??= rule(event);
    },
  });
  return {
    feed(chunk) {
      if (verdict === undefined) parser.feed(decoder.decode(chunk, { stream: true }));
    },
    succeeded: () => verdict === 'success',
  };
}

/**
 * Whether an event's data is an object with a truthy `error`, which the OpenAI SDKs raise as an
 * APIError whatever the event's name. Only data that names `error` (or has escapes, which could
 * spell it) is parsed: content deltas are most events.
 */
export function carriesError(data: string): boolean {
  if (!data.includes('"error"') && !data.includes('\\u')) return false;
  try {
    const value = JSON.parse(data) as { error?: unknown } | null;
    return value !== null && typeof value === 'object' && Boolean(value.error);
  } catch {
    return false;
  }
}
