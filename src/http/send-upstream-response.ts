import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { RecapError, sseErrorEvent } from '../errors.js';
import { arrivedWhole } from './arrived-whole.js';
import { upstreamFailure } from '../upstream/client.js';
import { clientResponseHeaders } from '../upstream/headers.js';
import { sseBoundary } from './sse-boundary.js';

export interface SendOptions {
  /** The upstream's name, for recap's own error when the body fails. */
  upstream: string;
  /** recap's own response headers (x-recap-*). */
  extraHeaders?: Record<string, string>;
  /** Sees every body chunk as it passes; must not keep or alter it. */
  observe?: (chunk: Buffer) => void;
  /**
   * A client that takes in nothing of the response for this long is disconnected, and the
   * upstream request with it: backpressure holds the upstream while a client does not read, and a
   * client that never reads again would otherwise hold that upstream connection for good.
   */
  clientStallMs: number;
}

/** What is relayed: an upstream's response, or a reply recap composed from several (recall/). */
export interface UpstreamReply {
  statusCode: number;
  headers: IncomingHttpHeaders;
  /** As it comes, or whole: a reply recap held (recall/json-reply.ts) goes in 64 KB writes, without a stream around it. */
  body: Readable | Buffer;
}

// A held reply's write size: a client must take in this much within client_stall_ms.
const HELD_SLICE_BYTES = 64 * 1024;

export type SendOutcome = 'complete' | 'client_closed' | 'client_stalled' | 'upstream_broken' | 'upstream_timeout';

/**
 * Relays the upstream's status, headers and body: each upstream chunk is one write to the client,
 * so a stream is never re-chunked or buffered (a short reply that is all in already goes in one
 * write, as a held one does). A stream's headers go out at once (the client sees it start before
 * the first token); any other reply's headers leave with its first body chunk, so
 * a body that fails before its first byte is answered with recap's own error instead (thrown: 504
 * `upstream_timeout` after `body_idle_ms` of silence, 502 otherwise), never with the upstream's
 * headers and no body. Once bytes are out, a failing body cuts the client's connection (a broken
 * reply, never a clean end), except that a stream that goes silent past the idle timeout between
 * two events ends with an error event in OpenAI's shape, which SDKs raise. A client that leaves
 * destroys the upstream body (and so the upstream request) with it.
 */
export async function sendUpstreamResponse(res: ServerResponse, upstream: UpstreamReply, opts: SendOptions): Promise<SendOutcome> {
  const headers = clientResponseHeaders(upstream.headers);
  for (const [name, value] of Object.entries(opts.extraHeaders ?? {})) headers[name] = value;
  const start = () => {
    if (!res.headersSent) res.writeHead(upstream.statusCode, headers);
  };
  const { body } = upstream;
  if (Buffer.isBuffer(body)) return sendHeld(res, body, start, opts);
  const stream = String(upstream.headers['content-type'] ?? '').includes('text/event-stream');
  const whole = stream ? undefined : arrivedWhole(body, upstream.headers, HELD_SLICE_BYTES);
  if (whole) return sendHeld(res, whole, start, opts);
  const events = stream ? sseBoundary() : undefined;
  if (events) {
    start();
    // The headers leave at once, so the client sees the stream begin before its first event; when
    // that event has already arrived, they leave with it, in one write instead of two.
    if (body.readableLength === 0) res.flushHeaders();
  }
  let clientGone = false;
  res.once('close', () => {
    if (res.writableFinished) return;
    clientGone = true;
    body.destroy();
  });
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      start();
      const flushed = res.write(chunk);
      // Read after the write, so that the client does not wait while recap looks at the chunk.
      opts.observe?.(chunk);
      events?.feed(chunk);
      if (flushed) continue;
      const ended = await waitForClient(res, opts.clientStallMs);
      if (ended === 'client_stalled') return ended;
      if (ended) break;
    }
  } catch (err) {
    if (clientGone) return 'client_closed';
    const failure = upstreamFailure(opts.upstream, err);
    if (!res.headersSent) throw failure;
    const timedOut = failure instanceof RecapError && failure.code === 'upstream_timeout';
    if (timedOut && events?.atBoundary()) {
      res.end(sseErrorEvent(failure));
      return (await delivered(res)) ? 'upstream_timeout' : 'client_closed';
    }
    res.destroy();
    return timedOut ? 'upstream_timeout' : 'upstream_broken';
  }
  if (clientGone) return 'client_closed';
  start();
  res.end();
  return (await delivered(res)) ? 'complete' : 'client_closed';
}

/** A reply held whole: `start` writes its headers. */
async function sendHeld(res: ServerResponse, held: Buffer, start: () => void, opts: SendOptions): Promise<SendOutcome> {
  start();
  opts.observe?.(held);
  // In slices, each waited for as a relayed chunk is: a client that reads a big reply slowly
  // but steadily keeps its connection, and one that takes in nothing is let go as a stream's is.
  for (let at = 0; at < held.length; at += HELD_SLICE_BYTES) {
    if (res.write(held.subarray(at, at + HELD_SLICE_BYTES))) continue;
    const ended = await waitForClient(res, opts.clientStallMs);
    if (ended) return ended;
  }
  res.end();
  return (await delivered(res)) ? 'complete' : 'client_closed';
}

/** After a write the socket could not take at once: nothing once it drained, else how the send ends (a client that took in nothing for `stallMs` is disconnected). */
async function waitForClient(res: ServerResponse, stallMs: number): Promise<'client_stalled' | 'client_closed' | undefined> {
  const drain = await drained(res, stallMs);
  if (drain === 'stalled') {
    res.destroy();
    return 'client_stalled';
  }
  return drain === 'gone' ? 'client_closed' : undefined;
}

/** After a write the socket could not take at once: whether it drained, the client left, or took in nothing for `stallMs`. */
function drained(res: ServerResponse, stallMs: number): Promise<'drained' | 'gone' | 'stalled'> {
  if (res.destroyed) return Promise.resolve('gone');
  return new Promise((resolve) => {
    const settle = (result: 'drained' | 'gone' | 'stalled') => {
      clearTimeout(timer);
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve(result);
    };
    const onDrain = () => settle('drained');
    const onClose = () => settle('gone');
    const timer = setTimeout(() => settle('stalled'), stallMs);
    res.once('drain', onDrain);
    res.once('close', onClose);
  });
}

/** Whether the whole response was handed to the client's connection. */
function delivered(res: ServerResponse): Promise<boolean> {
  return finished(res).then(
    () => true,
    () => false,
  );
}
