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

  // The upstream holds back for 1.5 s: long enough that nothing can have waited for it unnoticed,
  // however loaded the machine; what the client holds is compared with what the fake has sent.
  it("passes a stream's headers on at once when its first event comes later", async () => {
    h.fake.enqueue({ stream: { chunks: ['late'] }, stall: { ms: 1500, afterEvents: 0 } });
    const sentAt = performance.now();
    const res = await fetch(`${h.recap.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: JSON.stringify(ask('headers first')),
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    // The headers are here while the upstream has not sent a single event.
    expect(h.fake.sentBytes(h.fake.chatRequests().at(-1)!)).toHaveLength(0);
    const text = await res.text();
    expect(performance.now() - sentAt).toBeGreaterThanOrEqual(1495);
    expect(text).toContain('late');
  });

  it('delivers each event as the upstream sends it (no buffering)', async () => {
    h.fake.enqueue({ stream: { chunks: ['first', ' second', ' third'] }, stall: { ms: 1500, afterEvents: 2 } });
    const res = await fetch(`${h.recap.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: JSON.stringify(ask('pace')),
    });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let received = '';
    while (received.split('\n\n').length - 1 < 2) received += decoder.decode((await reader.read()).value, { stream: true });
    // The client holds the events sent before the upstream paused, exactly, while the rest is still to come.
    const sentSoFar = h.fake.sentBytes(h.fake.chatRequests().at(-1)!).toString();
    expect(received).toBe(sentSoFar);
    expect(received).not.toContain('[DONE]');
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      received += decoder.decode(value, { stream: true });
    }
    expect(received).toBe(h.fake.sentBytes(h.fake.chatRequests().at(-1)!).toString());
    expect(received).toContain('[DONE]');
  });
});
