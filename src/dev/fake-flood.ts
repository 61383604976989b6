// A reply that streams filler as fast as the connection accepts it: each write waits for 'drain'
// once the socket's buffer is full, and no copy is kept, so a backpressure test can read how far
// the fake got (`RecordedRequest.floodedBytes`) while its client is not reading.
import type { ServerResponse } from 'node:http';
import type { RecordedRequest } from './fake-types.js';

// SSE comment lines: a client's event parser skips them.
const CHUNK = Buffer.from(`: ${'x'.repeat(1021)}\n`.repeat(64));

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

export async function flood(res: ServerResponse, record: RecordedRequest, bytes: number, headers: Record<string, string>): Promise<void> {
  record.floodedBytes = 0;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers });
  while (record.floodedBytes < bytes && !res.destroyed) {
    const piece = CHUNK.subarray(0, Math.min(CHUNK.length, bytes - record.floodedBytes));
    record.floodedBytes += piece.length;
    if (!res.write(piece)) await drained(res);
  }
  if (!res.destroyed) res.end();
}
