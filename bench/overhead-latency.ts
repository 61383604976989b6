// Sequential (concurrency 1) timings over one keep-alive connection per target: the whole
// request/response round trip, or the time to the first byte of a streamed reply. Targets are
// interleaved batch by batch, so slow drift of the machine touches every target alike.
import { Pool } from 'undici';
import type { Target, TargetName } from './overhead-targets.js';

export interface Client {
  target: Target;
  pool: Pool;
  path: string;
}

/** A client of `target` on the route `route` (below /v1). */
export function clientFor(target: Target, route = '/chat/completions'): Client {
  const url = new URL(target.url);
  // No reply on loopback takes seconds; a stuck target fails the bench instead of hanging it.
  const pool = new Pool(url.origin, { connections: 1, keepAliveTimeout: 60_000, headersTimeout: 30_000, bodyTimeout: 30_000 });
  return { target, pool, path: `${url.pathname}${route}` };
}

export interface Timing {
  ms: number;
  headers: Record<string, string | string[] | undefined>;
}

async function send(c: Client, body: Buffer) {
  const res = await c.pool.request({ method: 'POST', path: c.path, headers: c.target.headers, body });
  if (res.statusCode !== 200) {
    const text = await res.body.text();
    throw new Error(`${c.target.name}: HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
  }
  return res;
}

/** Request sent to response body fully read. */
export async function roundTrip(c: Client, body: Buffer): Promise<Timing> {
  const start = performance.now();
  const res = await send(c, body);
  for await (const _chunk of res.body) {
    // read to the end: the reply counts until its last byte
  }
  return { ms: performance.now() - start, headers: res.headers };
}

/** Request sent to the first body byte of a streamed reply; the rest is read outside the timing. */
export async function firstByte(c: Client, body: Buffer): Promise<Timing> {
  const start = performance.now();
  const res = await send(c, body);
  const chunks = res.body[Symbol.asyncIterator]();
  await chunks.next();
  const ms = performance.now() - start;
  while (!(await chunks.next()).done) {
    // drain so the connection is reusable
  }
  return { ms, headers: res.headers };
}

export interface InterleaveOptions {
  perTarget: number;
  batch: number;
  /** performance.now() past which no new batch starts. */
  deadline: number;
}

/** Runs `measure` round-robin in batches until each client has `perTarget` samples or time is up. */
export async function interleaved(
  clients: Client[],
  body: Buffer,
  measure: (c: Client, body: Buffer) => Promise<Timing>,
  opts: InterleaveOptions,
): Promise<Map<TargetName, number[]>> {
  const samples = new Map<TargetName, number[]>(clients.map((c) => [c.target.name, []]));
  const rounds = Math.ceil(opts.perTarget / opts.batch);
  for (let round = 0; round < rounds && performance.now() < opts.deadline; round++) {
    // Rotating the start keeps any target from always following the same neighbour.
    for (let k = 0; k < clients.length; k++) {
      const c = clients[(round + k) % clients.length] as Client;
      for (let i = 0; i < opts.batch; i++) samples.get(c.target.name)!.push((await measure(c, body)).ms);
    }
  }
  return samples;
}

export async function warmUp(clients: Client[], body: Buffer, count: number): Promise<void> {
  for (const c of clients) for (let i = 0; i < count; i++) await roundTrip(c, body);
}
