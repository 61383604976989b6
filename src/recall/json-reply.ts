import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { UpstreamReply } from '../http/send-upstream-response.js';
import { errors } from '../errors.js';
import { arrivedWhole } from '../http/arrived-whole.js';
import { upstreamFailure } from '../upstream/client.js';
import { isObj } from './json-object.js';
import type { RecallTurn } from './hops.js';
import { RECALL_TOOL_NAME } from './tool.js';
import type { RecallWire } from './wire.js';

// A whole (non-streamed) reply to a request that went with recap_recall: read whole, and when it
// calls recap_recall, answered and continued, up to the hop bound. The client gets the final
// reply only: with no recall in the first one, its very bytes; after a continuation, the last
// hop's bytes with the usage summed over the hops. A continuation the upstream refuses (an error
// status), or answers with a body that is not a JSON object, is what the client gets, as the
// upstream sent it. recap holds at most `holdLimit` bytes of a reply (server.body_limit_bytes):
// a first reply past it goes on to the client as it comes, no recall answered in it; a
// continuation past it ends the reply with recap's 502 upstream_reply_too_large.

export interface JsonRecallInput<T, P> {
  first: Dispatcher.ResponseData;
  turn: RecallTurn<T>;
  wire: RecallWire<T, P>;
  parsed: P;
  /** Sends a continuation's body upstream. */
  send(body: Buffer): Promise<Dispatcher.ResponseData>;
  /** The upstream's name, for recap's own error when a body fails. */
  upstream: string;
  /** Sees the first hop's bytes (calibration compares them with what recap forwarded). */
  observeFirst?: ((chunk: Buffer) => void) | undefined;
  /** The most bytes of one reply recap holds to answer recalls in it. */
  holdLimit: number;
}

type Held = { whole: Buffer } | { head: Buffer[]; rest: AsyncIterator<Buffer> };

/** The body whole while it stays within `limit`; else the chunks read so far and the rest, still to come. */
async function readHeld(response: Dispatcher.ResponseData, upstream: string, limit: number): Promise<Held> {
  const arrived = arrivedWhole(response.body, response.headers, limit);
  if (arrived) return { whole: arrived };
  const chunks: Buffer[] = [];
  let bytes = 0;
  const body = (response.body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  try {
    for (let next = await body.next(); !next.done; next = await body.next()) {
      chunks.push(next.value);
      bytes += next.value.length;
      if (bytes > limit) return { head: chunks, rest: body };
    }
  } catch (err) {
    throw upstreamFailure(upstream, err);
  }
  return { whole: Buffer.concat(chunks, bytes) };
}

/** The held chunks and the rest of the body, as they come, each seen by `observe`. */
async function* passedOn(head: Buffer[], rest: AsyncIterator<Buffer>, observe: ((chunk: Buffer) => void) | undefined): AsyncGenerator<Buffer> {
  for (const chunk of head) {
    observe?.(chunk);
    yield chunk;
  }
  for (let next = await rest.next(); !next.done; next = await rest.next()) {
    observe?.(next.value);
    yield next.value;
  }
}

// A first reply goes on unparsed when its bytes cannot hold a recap_recall call: each wire finds
// its calls by a string equal to the tool's name, which JSON writes either as it is (the same ASCII
// bytes in UTF-8) or with `\u` escapes (no other escape spells a letter or `_`). The search is for
// the name from its `_` on, which holds whenever the name does: a search starts from its first
// byte, and `_` is far rarer in a reply than `r` (50 KB of prose: 0.5 µs against 20).
const NAME_TAIL = Buffer.from(RECALL_TOOL_NAME.slice(RECALL_TOOL_NAME.indexOf('_')));
const ESCAPE = Buffer.from('\\u');

function mayCallRecall(raw: Buffer): boolean {
  return raw.includes(NAME_TAIL) || raw.includes(ESCAPE);
}

function parsed(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return null;
  }
}

/** `response`'s status and headers with `bytes` for its body. */
function replyOf(response: Dispatcher.ResponseData, bytes: Buffer): UpstreamReply {
  const headers = { ...response.headers };
  if (headers['content-length'] !== undefined) headers['content-length'] = String(bytes.length);
  return { statusCode: response.statusCode, headers, body: bytes };
}

export async function recallJsonReply<T, P>(input: JsonRecallInput<T, P>): Promise<UpstreamReply> {
  const { turn, wire } = input;
  let response = input.first;
  for (;;) {
    if (response.statusCode >= 300) return response;
    const held = await readHeld(response, input.upstream, input.holdLimit);
    if (!('whole' in held)) {
      if (turn.hops > 0) {
        await held.rest.return?.();
        throw errors.recallReplyTooLarge(input.upstream, input.holdLimit);
      }
      return { statusCode: response.statusCode, headers: response.headers, body: Readable.from(passedOn(held.head, held.rest, input.observeFirst)) };
    }
    const raw = held.whole;
    if (turn.hops === 0) {
      input.observeFirst?.(raw);
      if (!mayCallRecall(raw)) return replyOf(response, raw);
    }
    const reply = parsed(raw);
    const calls = reply === null ? null : wire.replyCalls(reply);
    // A first reply, and one that is not a JSON object, go on as the upstream sent them.
    if (!calls) return replyOf(response, turn.hops === 0 || !isObj(reply) ? raw : wire.finalReply(raw, reply, turn.usageWith(wire.usageOf(reply)), false));
    const next = turn.mayContinue() ? turn.continueWith(calls, wire.usageOf(reply)) : null;
    if (next === null) return replyOf(response, wire.finalReply(raw, reply, turn.usageWith(wire.usageOf(reply)), true));
    response = await input.send(wire.body(input.parsed, next));
  }
}
