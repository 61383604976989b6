import { Readable } from 'node:stream';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { Dispatcher } from 'undici';
import type { UpstreamReply } from '../http/send-upstream-response.js';
import type { RecallTurn } from './hops.js';
import type { JsonRecallInput } from './json-reply.js';

// A streamed reply to a request that went with recap_recall. The first hop's bytes go to the
// client as they come until the reply starts calling tools (the chunk where that shows, and every
// one after it, is held back). When the reply ends: without a recall call, the held chunks go out
// unchanged (the same bytes as without recall); with one, they are dropped and the continuation's
// events stream in their place, its own tool calls held back the same way, so the client reads one
// reply. Events of a continuation are written one by one as the parser reads them, the usage event
// with the usage summed over the hops. A continuation refused with an error status ends the stream
// with an error event carrying the upstream's error body, and no end: nothing is stored.

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

async function* composed<T, P>(first: Dispatcher.ResponseData, input: JsonRecallInput<T, P>, turn: RecallTurn<T>): AsyncGenerator<Buffer> {
  const { wire } = input;
  let response = first;
  for (;;) {
    if (response.statusCode >= 300) {
      yield Buffer.from(errorEvent(response.statusCode, Buffer.from(await response.body.arrayBuffer())));
      return;
    }
    const firstHop = turn.hops === 0;
    const reading = wire.readStream();
    const events: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: (e) => events.push(e) });
    const decoder = new TextDecoder();
    const held: Buffer[] = [];
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      if (firstHop) input.observeFirst?.(chunk);
      parser.feed(decoder.decode(chunk, { stream: true }));
      for (const e of events.splice(0)) {
        reading.event(e.data);
        if (firstHop) continue;
        const text = Buffer.from(eventText(e, wire.eventWithUsage(e.data, turn.usageWith(reading.usage())) ?? e.data));
        if (reading.callsTools()) held.push(text);
        else yield text;
      }
      // The first hop's own chunks, unchanged: held from the one where its tool calls show.
      if (!firstHop) continue;
      if (reading.callsTools()) held.push(chunk);
      else yield chunk;
    }
    const calls = reading.replyCalls();
    if (!calls) {
      yield* held;
      return;
    }
    if (!turn.mayContinue()) {
      for (const text of reading.closingEvents(turn.usageWith(reading.usage()))) yield Buffer.from(text);
      return;
    }
    response = await input.send(wire.body(input.parsed, turn.continueWith(calls, reading.usage())));
  }
}

/** The first hop's status and headers, with the composed events for its body. */
export function recallStreamReply<T, P>(input: JsonRecallInput<T, P>): UpstreamReply {
  const { first, turn } = input;
  return { statusCode: first.statusCode, headers: first.headers, body: Readable.from(composed(first, input, turn), { objectMode: false }) };
}
