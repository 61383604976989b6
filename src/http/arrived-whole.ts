import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';

/**
 * A reply's whole body when every byte of its declared length is in already (a short reply comes
 * in the read that brought its headers) and it is at most `maxBytes`, else undefined. Taken whole,
 * it is read without a stream's async iteration and the turns of the event loop that costs. The
 * body is left to end and close as a read one does (its connection goes back to the pool).
 */
export function arrivedWhole(body: Readable, headers: IncomingHttpHeaders, maxBytes: number): Buffer | undefined {
  const length = Number(headers['content-length']);
  if (!(length > 0) || length > maxBytes || body.readableLength !== length) return undefined;
  const whole = body.read(length) as Buffer | null;
  body.resume();
  return whole ?? undefined;
}
