import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { UpstreamReply } from '../http/send-upstream-response.js';
import { upstreamFailure } from '../upstream/client.js';
import type { RecallTurn } from './hops.js';
import type { RecallWire } from './wire.js';

// A whole (non-streamed) reply to a request that went with recap_recall: read whole, and when it
// calls recap_recall, answered and continued, up to the hop bound. The client gets the final
// reply only: with no recall in the first one, its very bytes; after a continuation, the last
// hop's bytes with the usage summed over the hops. A continuation the upstream refuses (an error
// status) is what the client gets, as the upstream sent it.

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
}

async function readWhole(response: Dispatcher.ResponseData, upstream: string): Promise<Buffer> {
  try {
    return Buffer.from(await response.body.arrayBuffer());
  } catch (err) {
    throw upstreamFailure(upstream, err);
  }
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
  return { statusCode: response.statusCode, headers, body: Readable.from([bytes]) };
}

export async function recallJsonReply<T, P>(input: JsonRecallInput<T, P>): Promise<UpstreamReply> {
  const { turn, wire } = input;
  let response = input.first;
  for (;;) {
    if (response.statusCode >= 300) return response;
    const raw = await readWhole(response, input.upstream);
    if (turn.hops === 0) input.observeFirst?.(raw);
    const reply = parsed(raw);
    const calls = reply === null ? null : wire.replyCalls(reply);
    if (!calls) return replyOf(response, turn.hops === 0 ? raw : wire.finalReply(raw, reply, turn.usageWith(wire.usageOf(reply)), false));
    if (!turn.mayContinue()) return replyOf(response, wire.finalReply(raw, reply, turn.usageWith(wire.usageOf(reply)), true));
    response = await input.send(wire.body(input.parsed, turn.continueWith(calls, wire.usageOf(reply))));
  }
}
