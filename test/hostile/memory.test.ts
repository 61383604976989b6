import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pastedLogBody } from '../../bench/hardening-bodies.js';
import { type FakeUpstream, startFakeUpstream } from '../../src/dev/fake-upstream.js';
import { prose } from '../helpers/conversation.js';
import { residentMemory } from '../helpers/procfs.js';
import { type RecapProcess, startRecapProcess, writeConfigFile } from '../helpers/recap-process.js';

// recap as its own OS process, fed big bodies several at a time: 5 MB messages, 10,000-message
// conversations, bodies over the limit (declared and chunked) and a stream its client does not
// read. Its peak resident memory (VmHWM) must stay within a fixed bound over its memory at rest:
// bodies are held one per request and never past the limit, and streams are not buffered. And its
// event loop is never held long by one big body, compacted or not.

const MB = 1024 * 1024;
const LIMIT = 32 * MB; // the default server.body_limit_bytes
const CONCURRENCY = 4;
// Over its memory at rest recap peaked 75-85 MiB higher on this workload when the bound was set
// (four requests in flight, each holding a body a few times over, raw bytes, parsed JSON, hashing,
// or up to the limit of one it refuses), and buffering the 128 MiB stream instead of passing it on
// went 300 MiB over. With the cache of seen items and its runs (up to tokens.memo_max_bytes, 64 MiB)
// it peaks 149-218 MiB over (37 runs on one VM, of 5e41b03 and of later builds alike: one in
// four failed the 200 MiB bound that used to sit between), and buffering the stream goes 866-872
// MiB over.
const PEAK_BOUND_MB = 260;

let fake: FakeUpstream;
let recap: RecapProcess;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  fake = await startFakeUpstream({ maxRecorded: 2, summarizerModel: 'gpt-test-summarizer' });
  const config = await writeConfigFile({
    server: { log_level: 'info' },
    upstreams: { fake: { base_url: fake.url } },
    models: [
      { match: 'gpt-test-plain', upstream: 'fake', context_window: 128000, max_output_tokens: 4096 },
      { match: 'gpt-test-window', upstream: 'fake', context_window: 16000, max_output_tokens: 1000, compaction: { strategy: 'window' } },
      {
        match: 'gpt-test-summarize',
        upstream: 'fake',
        context_window: 128000,
        max_output_tokens: 4096,
        compaction: { strategy: 'summarize', summarizer: { model: 'gpt-test-summarizer' } },
      },
    ],
    background: { enabled: false },
  });
  cleanup = config.cleanup;
  recap = await startRecapProcess(config.file);
}, 60_000);
afterAll(async () => {
  await recap?.stop();
  await fake?.close();
  await cleanup?.();
});

async function post(body: BodyInit): Promise<number | string> {
  try {
    const res = await fetch(`${recap.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body, duplex: 'half' } as RequestInit);
    await res.arrayBuffer();
    return res.status;
  } catch (err) {
    // A client still sending when recap hangs up after its 413 may see the reset instead.
    return (err as { cause?: { code?: string } }).cause?.code ?? 'error';
  }
}

function chunked(bytes: number): ReadableStream<Uint8Array> {
  const chunk = Buffer.alloc(MB, 'x');
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= bytes) return controller.close();
      controller.enqueue(chunk);
      sent += chunk.length;
    },
  });
}

/** A streamed reply of `bytes` that the client leaves unread until the upstream stalls, then reads. */
function slowReader(bytes: number): Promise<number> {
  fake.enqueue({ flood: bytes });
  return new Promise((resolve, reject) => {
    const req = http.request(`${recap.url}/v1/chat/completions`, { method: 'POST', agent: false, headers: { 'content-type': 'application/json' } });
    req.on('response', async (res) => {
      await new Promise((r) => setTimeout(r, 1500));
      let received = 0;
      for await (const chunk of res) received += (chunk as Buffer).length;
      resolve(received);
    });
    req.on('error', reject);
    req.end(JSON.stringify({ model: 'gpt-test-plain', messages: [{ role: 'user', content: 'flood me' }], stream: true }));
  });
}

async function inPool<T>(jobs: (() => Promise<T>)[], size: number): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: size }, async () => {
      while (next < jobs.length) {
        const i = next++;
        results[i] = await jobs[i]!();
      }
    }),
  );
  return results;
}

describe('memory under big bodies', () => {
  it('keeps the peak resident memory within a fixed bound over rest', async () => {
    const text = (n: number) =>
      prose(n, 1000)
        .repeat(Math.ceil(5e6 / prose(n, 1000).length))
        .slice(0, 5e6);
    const fiveMb = [1, 2].map((n) => JSON.stringify({ model: 'gpt-test-plain', messages: [{ role: 'user', content: text(n) }] }));
    const many = JSON.stringify({
      model: 'gpt-test-window',
      messages: Array.from({ length: 10_000 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `message ${i} ${prose(i, 8)}` })),
    });
    const declaredOver = Buffer.alloc(LIMIT + MB, 'x');
    const jobs: (() => Promise<number | string>)[] = [];
    for (let round = 0; round < 6; round++) {
      jobs.push(
        () => post(fiveMb[round % 2]!),
        () => post(many),
        () => post(chunked(LIMIT + 8 * MB)),
      );
      if (round % 2 === 0)
        jobs.push(
          () => post(declaredOver),
          () => post(fiveMb[(round + 1) % 2]!),
        );
    }

    const atRest = residentMemory(recap.pid);
    const [statuses, streamed] = await Promise.all([inPool(jobs, CONCURRENCY), slowReader(128 * MB)]);
    const after = residentMemory(recap.pid);
    const figures = `at rest ${atRest.rss.toFixed(0)} MiB (peak so far ${atRest.peak.toFixed(0)}), peak after ${after.peak.toFixed(0)} MiB`;

    expect(streamed).toBe(128 * MB);
    expect(statuses.filter((s) => s === 200)).toHaveLength(6 + 6 + 3); // the 5 MB and 10,000-message bodies
    for (const s of statuses) expect([200, 413, 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']).toContain(s);
    expect(after.peak - atRest.rss, figures).toBeLessThan(PEAK_BOUND_MB);
  });
});

/** The longest the recap process's event loop was held since the last scrape, in ms (prom-client's monitorEventLoopDelay). */
async function loopHeldMs(): Promise<number> {
  const text = await (await fetch(`${recap.url}/metrics`)).text();
  return 1000 * Number(/^recap_nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(text)![1]);
}

// How long the loop waits behind each body is the hardening bench's figure (bench/hardening.ts,
// loopMaxMs: 30-170 ms on a heavily loaded 2-core VM). Here only that it is nowhere near what the
// path takes unsliced: with createSlicer never yielding, these bodies held the loop 1.0-1.5 s;
// sliced, 130-180 ms at most at load 20 (so the bound is loose, not a latency target).
const LOOP_HELD_BOUND_MS = 600;

describe('the event loop under big bodies', () => {
  it.each([
    ['a 4 MB pasted log, summarized', () => pastedLogBody('gpt-test-summarize', 4e6)],
    [
      '10,000 messages, windowed',
      () =>
        JSON.stringify({
          model: 'gpt-test-window',
          messages: Array.from({ length: 10_000 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `message ${i} ${prose(i, 8)}` })),
        }),
    ],
  ])('is never held long while recap handles %s', async (_name, body) => {
    const text = body();
    await loopHeldMs();
    const res = await fetch(`${recap.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-recap-action')).toBe('compacted');
    await res.arrayBuffer();
    expect(await loopHeldMs()).toBeLessThan(LOOP_HELD_BOUND_MS);
  });
});
