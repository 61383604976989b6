// Requests per second at a fixed concurrency, with autocannon, each target for a few seconds per
// round, rounds interleaved across targets.
import { createRequire } from 'node:module';
import type { Target, TargetName } from './overhead-targets.js';

// autocannon ships no type declarations; this is the part of its API the bench uses.
interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
}
type Autocannon = (opts: {
  url: string;
  method: 'POST';
  headers: Record<string, string>;
  body: Buffer;
  connections: number;
  duration: number;
  timeout: number;
}) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export interface Throughput {
  rps: number;
  failed: number;
}

async function once(target: Target, body: Buffer, connections: number, seconds: number): Promise<AutocannonResult> {
  return autocannon({
    url: `${target.url}/chat/completions`,
    method: 'POST',
    headers: target.headers,
    body,
    connections,
    duration: seconds,
    timeout: 10,
  });
}

export async function warmThroughput(targets: Target[], body: Buffer, connections: number, seconds: number): Promise<void> {
  for (const t of targets) await once(t, body, connections, seconds);
}

/** 2xx replies per second over `rounds` interleaved runs of `seconds` each. */
export async function measureThroughput(targets: Target[], body: Buffer, connections: number, seconds: number, rounds: number): Promise<Map<TargetName, Throughput>> {
  const totals = new Map<TargetName, { ok: number; failed: number; seconds: number }>(targets.map((t) => [t.name, { ok: 0, failed: 0, seconds: 0 }]));
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < targets.length; k++) {
      const t = targets[(round + k) % targets.length] as Target;
      const r = await once(t, body, connections, seconds);
      const sum = totals.get(t.name)!;
      sum.ok += r['2xx'];
      sum.failed += r.non2xx + r.errors;
      sum.seconds += r.duration;
    }
  }
  return new Map([...totals].map(([name, s]) => [name, { rps: Math.round(s.ok / s.seconds), failed: s.failed }]));
}
