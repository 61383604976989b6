import type { RecapError } from '../errors.js';

// What answering recap_recall needs of one wire format (chat completions, Responses): the route's
// adapter writes the forwarded body with the tool injected, reads the calls out of a reply, and
// writes the items and the final reply of a continuation. The loop itself (hops.ts, stream.ts)
// never looks at a wire shape.

export interface RecallCall {
  id: string;
  /** As the model wrote them (a JSON string, normally). */
  arguments: unknown;
}

export interface ReplyCalls<T> {
  calls: RecallCall[];
  /** The reply's output as items of the continuation, carrying only its recall calls. */
  assistant: T[];
  /** The same carrying only the first `n` of its recall calls (those a continuation has room to answer). */
  assistantWith(n: number): T[];
  /** Other tool calls the model made in the same reply: dropped with it (it makes them again). */
  dropped: number;
}

/** A streamed reply as it goes by, event by event. */
export interface StreamReading<T> {
  /** Reads one event's data. */
  event(data: string): void;
  /** Whether the reply has started calling tools (from here its events are held back). */
  callsTools(): boolean;
  /** Whether the stream ended as its API ends a complete reply: a broken one is never continued. */
  ended(): boolean;
  /** Whether the reply has begun a recap_recall call, even one the stream broke off in (name partly sent included). */
  startedRecall(): boolean;
  /** The recall calls of the whole reply, once it ended; null when it makes none. */
  replyCalls(): ReplyCalls<T> | null;
  /** The usage the stream reported (its last usage event), if any. */
  usage(): unknown;
  /**
   * The events that end this reply as a plain answer, without its tool calls (the hop bound was
   * reached), `usage` in the usage event when the stream had one: the SSE text of each.
   */
  closingEvents(usage: unknown): string[];
  /**
   * How one event of a continuation reaches the client, which reads one reply whatever the hops:
   * its data as it is or rewritten, or null to leave it out (Anthropic's second `message_start`).
   * Without it, every event goes as it came.
   */
  relay?(data: string): string | null;
}

export interface RecallWire<T, P> {
  /** The bytes to forward: the client's body with `items` in place of its own and recap_recall after its tools (rule 12: nothing else changes). */
  body(parsed: P, items: readonly T[]): Buffer;
  /** The recall calls of a whole (JSON) reply, or null when it makes none. */
  replyCalls(reply: unknown): ReplyCalls<T> | null;
  usageOf(reply: unknown): unknown;
  /** The item that answers one call with `text`. */
  resultItem(callId: string, text: string): T;
  /** The final reply: `raw` with its usage replaced by `usage`; `strip`: without its tool calls (the hop bound was reached). */
  finalReply(raw: Buffer, reply: unknown, usage: unknown, strip: boolean): Buffer;
  /** Reads a streamed reply; `previous`: the reading of the hop before it, if any. */
  readStream(previous?: StreamReading<T>): StreamReading<T>;
  /**
   * The SSE text of the error event that ends a stream: a continuation's refusal (`body`, as the
   * upstream sent it, with its status) or recap's own error. Without it, OpenAI's: `data:` and the
   * error's JSON.
   */
  errorEvent?(error: { status: number; body: Buffer } | RecapError): string;
  /** One event's data with its usage replaced by `usage` (a stream's usage event), else null when it carries none. */
  eventWithUsage(data: string, usage: unknown): string | null;
}
