import { Readable } from 'node:stream';
import type { EventSourceMessage } from 'eventsource-parser';
import type { Dispatcher } from 'undici';
import { errors, sseErrorEvent } from '../errors.js';
import type { UpstreamReply } from '../http/send-upstream-response.js';
import { eventSplitter } from './event-split.js';
import type { JsonRecallInput } from './json-reply.js';
import type { RecallWire, StreamReading } from './wire.js';

// A streamed reply to a request that went with recap_recall. The first hop's bytes go to the
// client as they come until the reply starts calling tools (from the first byte of the event where
// that shows, everything is held back: event-split.ts). When the reply ends: without a recall call, the held chunks go out
// unchanged (the same bytes as without recall); with one, they are dropped and the continuation's
// events stream in their place, its own tool calls held back the same way, so the client reads one
// reply. Events of a continuation are written one by one as the parser reads them, the usage event
// with the usage summed over the hops. A continuation refused with an error status ends the stream
// with an error event carrying the upstream's error body, and no end: nothing is stored.
// recap holds at most `holdLimit` bytes of a hop (server.body_limit_bytes): a first hop past it goes
// on to the client as it comes, held bytes first, no recall answered in it; a continuation past it
// ends the stream with recap's upstream_reply_too_large error event.

function eventText(e: EventSourceMessage, data: string): string {
  return `${e.event ? `event: ${e.event}\n` : ''}${e.id !== undefined ? `id: ${e.id}\n` : ''}data: ${data}\n\n`;
}

/** The upstream's error body as the data of one event: its JSON on one line, else wrapped in OpenAI's shape. */
function errorEvent(status: number, body: Buffer): string {
  try {
    return `data: ${JSON.stringify(JSON.parse(body.toString('utf8')))}\n\n`;
  } catch {
    return `data: ${JSON.stringify({ error: { message: body.toString('utf8').slice(0, 2000), type: 'upstream_error', param: null, code: status } })}\n\n`;
  }
}

/**
 * The first hop: its bytes as they came, up to the event where it starts calling tools; that event
 * and everything after it held back. Returns the held bytes in `held` (empty when it calls no
 * tool), or 'passed' when it grew past `limit`: then everything went on as it came.
 */
async function* firstHop<T>(
  response: Dispatcher.ResponseData,
  reading: StreamReading<T>,
  held: Buffer[],
  observe: ((chunk: Buffer) => void) | undefined,
  limit: number,
): AsyncGenerator<Buffer, 'passed' | 'read'> {
  const splitter = eventSplitter();
  let heldBytes = 0;
  const body = (response.body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  for (let next = await body.next(); !next.done; next = await body.next()) {
    const chunk = next.value;
    observe?.(chunk);
    const { data, events } = splitter.feed(chunk);
    if (held.length > 0) {
      for (const { event } of events) reading.event(event.data);
      held.push(chunk);
      heldBytes += chunk.length;
    } else {
      let passed = 0;
      for (const { event, end } of events) {
        reading.event(event.data);
        if (!reading.callsTools()) passed = end;
      }
      if (passed > 0) yield data.subarray(0, passed);
      if (reading.callsTools()) {
        held.push(data.subarray(passed));
        heldBytes += data.length - passed;
      } else {
        splitter.keep(data, passed);
        heldBytes = data.length - passed;
      }
    }
    if (heldBytes > limit) {
      yield* held.length > 0 ? held.splice(0) : [splitter.rest()];
      for (let rest = await body.next(); !rest.done; rest = await body.next()) {
        observe?.(rest.value);
        yield rest.value;
      }
      return 'passed';
    }
  }
  const rest = splitter.rest();
  if (rest.length > 0) yield rest;
  return 'read';
}

/** A continuation: its events one by one, the usage summed; from its first tool call on, held back. 'too_large' past `limit`. */
async function* laterHop<T>(
  response: Dispatcher.ResponseData,
  reading: StreamReading<T>,
  held: Buffer[],
  usage: (hop: unknown) => unknown,
  wire: RecallWire<T, unknown>,
  limit: number,
): AsyncGenerator<Buffer, 'too_large' | 'read'> {
  const splitter = eventSplitter();
  let heldBytes = 0;
  // Bytes of an event not yet complete (the stream's parser holds them).
  let partial = 0;
  for await (const chunk of response.body as AsyncIterable<Buffer>) {
    const { events } = splitter.feed(chunk);
    for (const { event } of events) {
      reading.event(event.data);
      const data = wire.eventWithUsage(event.data, usage(reading.usage())) ?? event.data;
      const relayed = reading.relay ? reading.relay(data) : data;
      if (relayed === null) continue;
      const text = Buffer.from(eventText(event, relayed));
      if (reading.callsTools()) {
        held.push(text);
        heldBytes += text.length;
      } else yield text;
    }
    partial = events.length > 0 ? chunk.length - events.at(-1)!.end : partial + chunk.length;
    if (heldBytes + partial > limit) return 'too_large';
  }
  return 'read';
}

async function* composed<T, P>(input: JsonRecallInput<T, P>): AsyncGenerator<Buffer> {
  const { wire, turn } = input;
  let response = input.first;
  let previous: StreamReading<T> | undefined;
  for (;;) {
    if (response.statusCode >= 300) {
      const refusal = { status: response.statusCode, body: Buffer.from(await response.body.arrayBuffer()) };
      yield Buffer.from(wire.errorEvent ? wire.errorEvent(refusal) : errorEvent(refusal.status, refusal.body));
      return;
    }
    const reading = wire.readStream(previous);
    previous = reading;
    const held: Buffer[] = [];
    if (turn.hops === 0) {
      if ((yield* firstHop(response, reading, held, input.observeFirst, input.holdLimit)) === 'passed') return;
    } else if ((yield* laterHop(response, reading, held, turn.usageWith, wire as RecallWire<T, unknown>, input.holdLimit)) === 'too_large') {
      response.body.destroy();
      const err = errors.recallReplyTooLarge(input.upstream, input.holdLimit);
      yield Buffer.from(wire.errorEvent ? wire.errorEvent(err) : sseErrorEvent(err));
      return;
    }
    // A reply that broke off (an error event, no end) is never continued. It goes to the client as
    // it came, unless it broke off in a recap_recall call: that call is not the client's to see, so
    // the stream ends with recap's error event in place of what was held.
    if (!reading.ended()) {
      if (reading.startedRecall()) {
        const err = errors.upstreamBrokeOff(input.upstream);
        yield Buffer.from(wire.errorEvent ? wire.errorEvent(err) : sseErrorEvent(err));
      } else yield* held;
      return;
    }
    const calls = reading.replyCalls();
    if (!calls) {
      yield* held;
      return;
    }
    const next = turn.mayContinue() ? turn.continueWith(calls, reading.usage()) : null;
    if (next === null) {
      for (const text of reading.closingEvents(turn.usageWith(reading.usage()))) yield Buffer.from(text);
      return;
    }
    response = await input.send(wire.body(input.parsed, next));
  }
}

/** The first hop's status and headers, with the composed events for its body. */
export function recallStreamReply<T, P>(input: JsonRecallInput<T, P>): UpstreamReply {
  const { first } = input;
  return { statusCode: first.statusCode, headers: first.headers, body: Readable.from(composed(input), { objectMode: false }) };
}
