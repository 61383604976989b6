import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../../src/dev/fake-upstream.js';
import { type RecapProcess, startRecapProcess, writeConfigFile } from '../helpers/recap-process.js';

// A client names the model, and a name may be megabytes long. recap as its own OS process gets 80
// requests, each with a different 2 MiB model name: nothing may keep those names (the model
// resolver's cache held every one of them, 134 → 533 MiB), and each request's log line carries
// only a cut-down name (the whole of it made 300 MiB of logs).

const MB = 1024 * 1024;
const REQUESTS = 80;
// The names add up to 160 MiB. Kept (the resolver caching every name), resident memory rose by
// about 2.6 MiB a request (60 requests: +157 MiB; 150: 183 → 821 MiB). Forgotten, it rises by
// about 50 MiB over the run (heap pages V8 keeps for reuse: +47 MiB for 60, ~50 for 150).
const RSS_GROWTH_BOUND_MB = 120;
const LOG_LINE_BOUND_BYTES = 2048;

let fake: FakeUpstream;
let recap: RecapProcess;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  fake = await startFakeUpstream({ maxRecorded: 2 });
  const config = await writeConfigFile({
    server: { log_level: 'info' },
    upstreams: { fake: { base_url: fake.url } },
    models: [{ match: 'gpt-test*', upstream: 'fake', context_window: 128000, max_output_tokens: 4096 }],
  });
  cleanup = config.cleanup;
  recap = await startRecapProcess(config.file);
}, 60_000);
afterAll(async () => {
  await recap?.stop();
  await fake?.close();
  await cleanup?.();
});

function residentMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)![1]) / 1024;
}

describe('client-chosen model names', () => {
  it('keeps neither the names in memory nor more than a short prefix of them in the logs', async () => {
    const filler = 'x'.repeat(2 * MB);
    // One warm-up request, so the memory at rest includes what any first request allocates.
    const send = async (i: number) => {
      // Half match the configured glob, half go to the default upstream unmatched.
      const model = `${i % 2 ? 'gpt-test-' : 'other-'}${i}-${filler}`;
      const res = await fetch(`${recap.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer sk-names' },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: `hello ${i}` }] }),
      });
      await res.arrayBuffer();
      return res.status;
    };
    const requestLines = (from = 0) => recap.logs.slice(from).filter((l) => l.includes('"msg":"request"'));
    await send(-1);
    // Its log line is written just after its response.
    await expect.poll(() => requestLines().some((l) => l.includes('--1-xxx'))).toBe(true);
    const atRest = residentMiB(recap.pid);
    const logsBefore = recap.logs.length;
    for (let i = 0; i < REQUESTS; i++) expect(await send(i)).toBe(200);
    await expect.poll(() => requestLines(logsBefore).length, { timeout: 10_000 }).toBe(REQUESTS);
    const after = residentMiB(recap.pid);

    expect(after - atRest, `resident ${atRest.toFixed(0)} → ${after.toFixed(0)} MiB`).toBeLessThan(RSS_GROWTH_BOUND_MB);

    const lines = requestLines(logsBefore);
    const longest = Math.max(...lines.map((l) => Buffer.byteLength(l)));
    expect(longest).toBeLessThan(LOG_LINE_BOUND_BYTES);
    const entry = JSON.parse(lines[0]!) as { model: string };
    expect(entry.model).toMatch(/^other-0-x+…\[\d+ more chars\]$/);
  }, 120_000);
});
