import { once } from 'node:events';
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { type RequestAbort, requestAbort } from './client-abort.js';

// Real sockets on both sides: a client → a server that relays each request upstream with undici,
// its abort the request's, → an upstream that never answers until told to.

/** One request on its way: the upstream holds it, unanswered until told to. */
interface InFlight {
  client: { sent: Promise<string>; destroy(): void };
  /** The relaying server's abort for the request. */
  aborts: RequestAbort;
  /** Settles when the upstream's request closes: true when it closed unanswered (cancelled). */
  upstreamClosed: Promise<boolean>;
  /** How the relay's upstream request ended: 'answered', or its error. */
  relayed: Promise<unknown>;
  answerUpstream(): void;
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A client's request, relayed, once the upstream has it. */
async function inFlight(): Promise<InFlight> {
  let answer = () => {};
  let closed!: (cancelled: boolean) => void;
  const upstreamClosed = new Promise<boolean>((resolve) => (closed = resolve));
  let got!: () => void;
  const upstreamGot = new Promise<void>((resolve) => (got = resolve));
  const upstream = createServer((req, res) => {
    req.resume();
    answer = () => res.end('{}');
    res.once('close', () => closed(!res.writableFinished));
    got();
  });
  const pool = new Pool(await listen(upstream));
  closers.push(() => pool.close());
  let gotAbort!: (a: RequestAbort) => void;
  const abort = new Promise<RequestAbort>((resolve) => (gotAbort = resolve));
  let relayDone!: (v: unknown) => void;
  const relayed = new Promise((resolve) => (relayDone = resolve));
  const relay = createServer((req: IncomingMessage, res: ServerResponse) => {
    const aborts = requestAbort(res);
    gotAbort(aborts);
    pool
      .request({ method: 'POST', path: '/', body: req, signal: aborts.upstream })
      .then(async (up) => {
        res.end(await up.body.text());
        relayDone('answered');
      })
      .catch((err: unknown) => relayDone(err));
  });
  const client = post(await listen(relay));
  const [aborts] = await Promise.all([abort, upstreamGot]);
  return { client, aborts, upstreamClosed, relayed, answerUpstream: () => answer() };
}

function post(url: string): { sent: Promise<string>; destroy(): void } {
  const req = request(url, { method: 'POST' });
  const sent = new Promise<string>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c));
      res.on('end', () => resolve(text));
    });
    req.on('error', reject);
  });
  sent.catch(() => undefined);
  req.end('{"model":"m"}');
  return { sent, destroy: () => req.destroy() };
}

describe('requestAbort', () => {
  it('cancels the upstream request when the client leaves before its answer, and says the client went', async () => {
    const s = await inFlight();
    const { aborts } = s;
    // The AbortSignal made before the abort fires with it.
    const early = aborts.signal;
    s.client.destroy();
    expect(await s.upstreamClosed).toBe(true);
    expect(await s.relayed).toMatchObject({ message: 'client closed the connection' });
    expect(aborts.clientGone()).toBe(true);
    expect(early.aborted).toBe(true);
    // One made after it is born aborted, with the same reason.
    expect(aborts.signal.aborted).toBe(true);
    expect((aborts.signal.reason as Error).message).toBe('client closed the connection');
  });

  it('cancels the upstream request when recap gives up (abort()), the client still there', async () => {
    const s = await inFlight();
    const { aborts } = s;
    aborts.abort();
    expect(await s.upstreamClosed).toBe(true);
    expect(await s.relayed).toMatchObject({ message: 'request failed in recap' });
    expect(aborts.clientGone()).toBe(false);
    expect((aborts.signal.reason as Error).message).toBe('request failed in recap');
    s.client.destroy();
  });

  it('aborts nothing once the response is complete', async () => {
    const s = await inFlight();
    const { aborts } = s;
    s.answerUpstream();
    expect(await s.client.sent).toBe('{}');
    expect(await s.relayed).toBe('answered');
    expect(await s.upstreamClosed).toBe(false);
    // The server's response closes once finished: no abort follows it.
    await new Promise((r) => setTimeout(r, 20));
    expect(aborts.upstream.aborted).toBe(false);
    expect(aborts.signal.aborted).toBe(false);
    expect(aborts.clientGone()).toBe(false);
  });
});
