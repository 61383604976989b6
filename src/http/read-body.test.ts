import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RecapError } from '../errors.js';
import { readBody } from './read-body.js';

// A body is read whole, over a real socket: one of a declared length straight into one buffer,
// followed chunk by chunk as it arrives; a chunked one joined at its end and followed then.

interface Read {
  body?: Buffer;
  error?: unknown;
  /** What `onArrival` saw: the buffer's length and the bytes arrived, each time. */
  arrivals: { length: number; arrived: number; head: string }[];
}

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r) ?? r(undefined));
  server = undefined;
});

/** Sends `parts` (a timer tick between them) to a server that reads the body with `limit`. */
async function exchange(parts: string[], headers: Record<string, string | number>, limit = 1 << 20): Promise<Read> {
  const read: Read = { arrivals: [] };
  const done = new Promise<void>((resolve) => {
    server = createServer((req, res) => {
      readBody(req, limit, (buf, arrived) => read.arrivals.push({ length: buf.length, arrived, head: buf.toString('latin1', 0, arrived) }))
        .then((body) => (read.body = body))
        .catch((error: unknown) => (read.error = error))
        .finally(() => {
          res.end('ok');
          resolve();
        });
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  const req = request({ port: (server!.address() as AddressInfo).port, host: '127.0.0.1', method: 'POST', headers });
  req.on('error', () => undefined);
  req.on('response', (res) => res.resume());
  for (const part of parts) {
    req.write(part);
    await new Promise((r) => setTimeout(r, 2));
  }
  req.end();
  await done;
  return read;
}

describe('readBody', () => {
  it('writes a body of a declared length into one buffer as it arrives, telling how much is in', async () => {
    const parts = ['{"messages":[', '{"role":"user",', '"content":"hi"}', ']}'];
    const whole = parts.join('');
    const read = await exchange(parts, { 'content-length': whole.length });
    expect(read.body?.toString()).toBe(whole);
    expect(read.arrivals.length).toBeGreaterThan(1);
    for (const a of read.arrivals) {
      expect(a.length).toBe(whole.length);
      expect(a.head).toBe(whole.slice(0, a.arrived));
    }
    expect(read.arrivals.map((a) => a.arrived)).toEqual([...read.arrivals.map((a) => a.arrived)].sort((x, y) => x - y));
    expect(read.arrivals.at(-1)?.arrived).toBe(whole.length);
  });

  it('joins a chunked body at its end, and follows it once then', async () => {
    const read = await exchange(['{"a":', '1}'], { 'transfer-encoding': 'chunked' });
    expect(read.body?.toString()).toBe('{"a":1}');
    expect(read.arrivals).toEqual([{ length: 7, arrived: 7, head: '{"a":1}' }]);
  });

  it('refuses a body over the limit, declared or not', async () => {
    const declared = await exchange(['x'.repeat(100)], { 'content-length': 100 }, 50);
    expect(declared.error).toBeInstanceOf(RecapError);
    expect((declared.error as RecapError).code).toBe('body_too_large');
    expect(declared.arrivals).toEqual([]);
    const chunked = await exchange(['x'.repeat(40), 'x'.repeat(40)], { 'transfer-encoding': 'chunked' }, 50);
    expect((chunked.error as RecapError).code).toBe('body_too_large');
  });
});
