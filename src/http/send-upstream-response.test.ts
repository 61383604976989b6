import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type SendOutcome, sendUpstreamResponse } from './send-upstream-response.js';

// A whole reply recap held (to answer recalls in it) goes to the client in one write of its
// buffer: the client gets every byte, and one that takes in nothing is let go after
// client_stall_ms, as with a reply relayed chunk by chunk.

const STALL_MS = 300;
// A held reply goes in one write, and its stall timer runs until the whole of it has drained: a
// reader in this same process, on a loaded machine, could take 300 ms over 8 MB and be let go.
const READER_STALL_MS = 10_000;
let server: Server | undefined;
afterEach(async () => {
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
