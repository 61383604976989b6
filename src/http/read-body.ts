import type { IncomingMessage } from 'node:http';
import { errors } from '../errors.js';

/** Follows a body as it comes in: `buf` is as long as the whole body, its first `arrived` bytes written. */
export type OnArrival = (buf: Buffer, arrived: number) => void;

/**
 * Reads the whole request body, refusing more than `limit` bytes before buffering them. A body of
 * a declared length goes straight into one buffer of that length as it arrives (no copy of the
 * whole at its end), and `onArrival` follows it chunk by chunk; Node's parser delivers exactly
 * the declared bytes, and a body without a declared length (chunked) is joined at its end, where
 * `onArrival` follows it once.
 */
export function readBody(req: IncomingMessage, limit: number, onArrival?: OnArrival): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(errors.bodyTooLarge(limit));
  const whole = Number.isSafeInteger(declared) && declared >= 0 ? Buffer.allocUnsafe(declared) : undefined;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      if (size + chunk.length > limit) {
        cleanup();
        // Stop reading; the response carries the error and the connection is closed after it.
        req.pause();
        reject(errors.bodyTooLarge(limit));
        return;
      }
      if (whole) {
        chunk.copy(whole, size);
        size += chunk.length;
        onArrival?.(whole, size);
      } else {
        chunks.push(chunk);
        size += chunk.length;
      }
    };
    const onEnd = () => {
      cleanup();
      // Never the unwritten (uninitialized) bytes of a body cut short, should one ever end so.
      if (whole) resolve(size === whole.length ? whole : whole.subarray(0, size));
      else {
        const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
        // Followed in one go once joined: the items it resends are taken over as a declared body's are.
        onArrival?.(body, size);
        resolve(body);
      }
    };
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}
