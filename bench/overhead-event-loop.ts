// How long recap blocks its event loop while it counts a never-seen ~100k-token message: recap
// runs in this process (in-memory store) so that perf_hooks sees its loop; each probe sends one
// fresh ~500 KB user message and watches the loop delay until the reply is in. An idle stretch
// of the same length is watched first: on a shared machine the OS alone delays a loop too.
import { Writable } from 'node:stream';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { parseConfig } from '../src/config/config.js';
import { createLogger } from '../src/observability/logger.js';
import { startRecap } from '../src/main.js';
import { singleMessageBody } from './overhead-bodies.js';
import { BENCH_SECRET, benchConfigYaml } from './overhead-recap.js';
import { round3 } from './overhead-stats.js';

export interface LoopProbe {
  bodyBytes: number;
  requestMs: number;
  promptTokens: number;
  p99Ms: number;
  maxMs: number;
  idleP99Ms: number;
  idleMaxMs: number;
}

const NS_PER_MS = 1e6;

function delays(histogram: IntervalHistogram): { p99: number; max: number } {
  return { p99: round3(histogram.percentile(99) / NS_PER_MS), max: round3(histogram.max / NS_PER_MS) };
}

async function idleDelays(ms: number): Promise<{ p99: number; max: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  await sleep(ms);
  histogram.disable();
  return delays(histogram);
}

export async function probeEventLoop(upstreamUrl: string, bodyBytes: number, probes: number, firstSeed: number): Promise<LoopProbe[]> {
  // No REDIS_URL here: the in-memory store keeps the probe about counting, not about Redis.
  const config = parseConfig(benchConfigYaml(upstreamUrl, 'silent'), 'overhead-bench.yaml', { RECAP_SECRET: BENCH_SECRET });
  const nowhere = new Writable({ write: (_chunk, _enc, done) => done() });
  const recap = await startRecap(config, { port: 0, host: '127.0.0.1', logger: createLogger('silent', nowhere) });
  const results: LoopProbe[] = [];
  try {
    for (let i = 0; i < probes; i++) {
      // Built before the monitor starts: making the body is the client's work, not recap's.
      const body = singleMessageBody(bodyBytes, firstSeed + i);
      const idle = await idleDelays(results.at(-1)?.requestMs ?? 300);
      const histogram = monitorEventLoopDelay({ resolution: 1 });
      histogram.enable();
      const start = performance.now();
      const res = await request(`${recap.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer sk-overhead-bench' },
        body,
        headersTimeout: 60_000,
        bodyTimeout: 60_000,
      });
      await res.body.dump();
      const requestMs = performance.now() - start;
      histogram.disable();
      if (res.statusCode !== 200) throw new Error(`event-loop probe: HTTP ${res.statusCode}`);
      const busy = delays(histogram);
      results.push({
        bodyBytes: body.length,
        requestMs: round3(requestMs),
        promptTokens: Number(res.headers['x-recap-tokens-in'] ?? Number.NaN),
        p99Ms: busy.p99,
        maxMs: busy.max,
        idleP99Ms: idle.p99,
        idleMaxMs: idle.max,
      });
    }
  } finally {
    await recap.close();
  }
  return results;
}
