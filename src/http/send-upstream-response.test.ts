import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { Pool } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { type SendOutcome, sendUpstreamResponse } from './send-upstream-response.js';

// A whole reply recap held (to answer recalls in it) goes to the client from its buffer, in
// slices each waited for as a relayed chunk is: the client gets every byte, however slowly it
// reads while it keeps reading, and one that takes in nothing is let go after client_stall_ms.

const STALL_MS = 300;
// For the clients that read: a bound far above any pause between two of their reads, even on a
// loaded machine (they share this process with the server).
const READER_STALL_MS = 1_000;
let server: Server | undefined;
const others: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(others.splice(0).map((close) => close()));
  const s = server;
  server = undefined;
  if (!s) return;
  s.closeAllConnections();
  await new Promise<void>((resolve) => s.close(() => resolve()));
});

/** A server that answers every request with `body` through sendUpstreamResponse; its outcomes come in order. */
async function serving(body: Buffer, stallMs = STALL_MS): Promise<{ port: number; outcomes: Promise<SendOutcome>[] }> {
  const outcomes: Promise<SendOutcome>[] = [];
  server = createServer((_req, res) => {
    outcomes.push(
      sendUpstreamResponse(
        res,
        { statusCode: 200, headers: { 'content-type': 'application/json', 'content-length': String(body.length) }, body },
        { upstream: 'test', clientStallMs: stallMs },
      ),
    );
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', () => resolve()));
  return { port: (server.address() as { port: number }).port, outcomes };
}

describe('a whole reply', () => {
  it('reaches a client that reads it, every byte', async () => {
    const body = Buffer.alloc(8 * 1024 * 1024, 'a');
    const { port, outcomes } = await serving(body, READER_STALL_MS);
    const res = await fetch(`http://127.0.0.1:${port}/`);
    const got = Buffer.from(await res.arrayBuffer());
    expect(got.equals(body)).toBe(true);
    expect(await outcomes[0]).toBe('complete');
  });

  it('reaches a client that reads it slowly but steadily, taking far longer over it than client_stall_ms', async () => {
    const body = Buffer.alloc(16 * 1024 * 1024, 'b');
    const { port, outcomes } = await serving(body, READER_STALL_MS);
    const socket = connect(port, '127.0.0.1');
    try {
      const started = Date.now();
      let received = 0;
      const done = new Promise<void>((resolve, reject) => {
        // Takes in one chunk, then waits a little before the next: a few MB a second.
        socket.on('data', (chunk: Buffer) => {
          received += chunk.length;
          socket.pause();
          setTimeout(() => socket.resume(), 10);
        });
        socket.on('end', resolve);
        socket.on('error', reject);
      });
      socket.write('GET / HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n');
      await done;
      expect(await outcomes[0]).toBe('complete');
      // Every byte of the body came, after the head; and reading it took longer than the bound.
      expect(received).toBeGreaterThan(body.length);
      expect(Date.now() - started).toBeGreaterThan(READER_STALL_MS);
    } finally {
      socket.destroy();
    }
  });

  it('lets a client that takes in nothing go after client_stall_ms', async () => {
    const { port, outcomes } = await serving(Buffer.alloc(64 * 1024 * 1024, 'a'));
    const socket = connect(port, '127.0.0.1');
    try {
      socket.write('GET / HTTP/1.1\r\nHost: test\r\n\r\n');
      // Never read: the socket buffers fill, and the server's write waits.
      socket.pause();
      await expect.poll(() => outcomes.length).toBe(1);
      const started = Date.now();
      expect(await outcomes[0]).toBe('client_stalled');
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      socket.destroy();
    }
  });
});

describe('a relayed reply whose every byte came with its headers', () => {
  it('reaches the client byte for byte, seen once whole, its upstream body read to its end and its connection kept', async () => {
    const reply = Buffer.from(JSON.stringify({ id: 'chatcmpl-1', choices: [{ message: { role: 'assistant', content: 'Hello — ok.' } }] }));
    let connections = 0;
    const upstream = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(reply.length) }).end(reply));
    });
    upstream.on('connection', () => connections++);
    upstream.listen(0, '127.0.0.1');
    await once(upstream, 'listening');
    const pool = new Pool(`http://127.0.0.1:${(upstream.address() as { port: number }).port}`);
    others.push(async () => {
      await pool.close();
      upstream.closeAllConnections();
      await new Promise<void>((resolve) => upstream.close(() => resolve()));
    });
    const seen: Buffer[] = [];
    const closed: Promise<unknown>[] = [];
    const outcomes: Promise<SendOutcome>[] = [];
    server = createServer((req, res) => {
      req.resume();
      outcomes.push(
        (async () => {
          const up = await pool.request({ method: 'POST', path: '/', body: '{}' });
          closed.push(once(up.body, 'close'));
          // The reply is short: its body is in by the time its headers are handled.
          await expect.poll(() => up.body.readableLength).toBe(reply.length);
          return sendUpstreamResponse(res, up, { upstream: 'test', clientStallMs: READER_STALL_MS, observe: (chunk) => seen.push(chunk) });
        })(),
      );
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
    for (let i = 0; i < 2; i++) {
      const res = await fetch(url, { method: 'POST', body: '{}' });
      expect(res.headers.get('content-length')).toBe(String(reply.length));
      expect(Buffer.from(await res.arrayBuffer()).equals(reply)).toBe(true);
      expect(await outcomes[i]).toBe('complete');
      await closed[i];
    }
    expect(seen).toEqual([reply, reply]);
    // Each upstream body ended as a read one does: the second request went on the first's connection.
    expect(connections).toBe(1);
  });
});
