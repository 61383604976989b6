import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { arrivedWhole } from './arrived-whole.js';

// Over a real socket and undici: a reply is taken whole only when every byte of its declared
// length is in; anything else is left to be read as a stream, untouched.

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** An upstream that answers each request with `answer`, and a pool to it. */
async function upstream(answer: (res: ServerResponse) => void): Promise<Pool> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => answer(res));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const pool = new Pool(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  closers.push(async () => {
    await pool.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return pool;
}

const REPLY = Buffer.from('{"id":"r1","choices":[]}');

describe('arrivedWhole', () => {
  it('takes a reply whose declared length is all in, and lets its body end and close', async () => {
    const pool = await upstream((res) => res.writeHead(200, { 'content-length': String(REPLY.length) }).end(REPLY));
    const up = await pool.request({ method: 'POST', path: '/', body: '{}' });
    await expect.poll(() => up.body.readableLength).toBe(REPLY.length);
    const closed = once(up.body, 'close');
    expect(arrivedWhole(up.body, up.headers, 1024)?.equals(REPLY)).toBe(true);
    await closed;
  });

  it('leaves a reply whose bytes are still coming, over the bound, or of no declared length to be read as it comes', async () => {
    let finish: (() => void) | undefined;
    const pool = await upstream((res) => {
      res.writeHead(200, { 'content-length': String(REPLY.length) });
      res.write(REPLY.subarray(0, 5));
      finish = () => res.end(REPLY.subarray(5));
    });
    const partial = await pool.request({ method: 'POST', path: '/', body: '{}' });
    await expect.poll(() => partial.body.readableLength).toBe(5);
    expect(arrivedWhole(partial.body, partial.headers, 1024)).toBeUndefined();
    finish!();
    expect(Buffer.from(await partial.body.arrayBuffer()).equals(REPLY)).toBe(true);

    const whole = await pool.request({ method: 'POST', path: '/', body: '{}' });
    finish!();
    await expect.poll(() => whole.body.readableLength).toBe(REPLY.length);
    expect(arrivedWhole(whole.body, whole.headers, REPLY.length - 1)).toBeUndefined();
    expect(Buffer.from(await whole.body.arrayBuffer()).equals(REPLY)).toBe(true);

    const chunkedPool = await upstream((res) => {
      res.write(REPLY);
      res.end();
    });
    const chunked = await chunkedPool.request({ method: 'POST', path: '/', body: '{}' });
    await expect.poll(() => chunked.body.readableLength).toBe(REPLY.length);
    expect(chunked.headers['content-length']).toBeUndefined();
    expect(arrivedWhole(chunked.body, chunked.headers, 1024)).toBeUndefined();
    expect(Buffer.from(await chunked.body.arrayBuffer()).equals(REPLY)).toBe(true);
  });
});
