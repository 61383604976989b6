import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './helpers/harness.js';

// Streams are relayed as they come, in-band errors included, and a client that leaves frees the
// upstream. Upstream breaks and silences are in hostile/upstream-faults.test.ts.

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h.close());

const ask = (content: string) => ({ model: 'gpt-test-1', messages: [{ role: 'user' as const, content }], stream: true as const });

describe('streaming faults', () => {
  it('an in-band SSE error event passes through untouched', async () => {
    h.fake.enqueue({ sseError: { message: 'overloaded', type: 'server_error' } });
    const res = await fetch(`${h.recap.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: JSON.stringify(ask('error event')),
    });
    const text = await res.text();
    expect(text).toBe(h.fake.sentBytes(h.fake.chatRequests().at(-1)!).toString());
    expect(text).toContain('"overloaded"');
    expect(text).not.toContain('[DONE]');
  });

  it('aborting the SDK call mid-stream cancels the upstream request before its stream ends', async () => {
    h.fake.setOptions({ chunkDelayMs: 50 });
    const closed = new Promise<void>((resolve) => h.fake.onClose(() => resolve()));
    const controller = new AbortController();
    const stream = await h.client().chat.completions.create(ask('a long answer please'), { signal: controller.signal });
    const consume = (async () => {
      for await (const _chunk of stream) controller.abort();
    })().catch(() => undefined);
    await closed;
    await consume;
    h.fake.setOptions({ chunkDelayMs: 0 });
    expect(h.fake.chatRequests().at(-1)!.closedEarly).toBe(true);
  });

  it("passes a stream's headers on at once when its first event comes later", async () => {
    h.fake.enqueue({ stream: { chunks: ['late'] }, stall: { ms: 600, afterEvents: 0 } });
    const sentAt = performance.now();
    const res = await fetch(`${h.recap.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: JSON.stringify(ask('headers first')),
    });
    const headersAfter = performance.now() - sentAt;
    const text = await res.text();
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    expect(headersAfter).toBeLessThan(300);
    expect(performance.now() - sentAt).toBeGreaterThanOrEqual(600);
    expect(text).toContain('late');
  });

  it('delivers each chunk as the upstream sends it (paced upstream, no buffering)', async () => {
    h.fake.setOptions({ chunkDelayMs: 120 });
    const res = await fetch(`${h.recap.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: JSON.stringify({ ...ask('pace'), messages: [{ role: 'user', content: 'pace' }] }),
    });
    h.fake.enqueue({});
    const arrivals: number[] = [];
    const reader = res.body!.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (value.length) arrivals.push(performance.now());
    }
    h.fake.setOptions({ chunkDelayMs: 0 });
    const sent = h.fake.sentBytes(h.fake.chatRequests().at(-1)!).toString().split('\n\n').filter(Boolean).length;
    // Paced 120 ms apart upstream, so they must arrive as separate reads spread over time.
    expect(arrivals.length).toBeGreaterThanOrEqual(Math.min(sent, 4));
    const gaps = arrivals.slice(1).map((t, i) => t - arrivals[i]!);
    expect(gaps.filter((g) => g > 60).length).toBeGreaterThanOrEqual(Math.min(sent, 4) - 2);
  });
});
