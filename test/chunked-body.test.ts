import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prose } from './helpers/conversation.js';
import { type Harness, SUMMARIZER, startHarness } from './helpers/harness.js';

// A body sent without a content-length (chunked, as some HTTP clients send a streamed body) is
// read whole before it is parsed; the messages it resends are then taken over from the previous
// request's run (src/body/item-runs.ts) as those of a body of a declared length are: the run it
// extends gives way to the longer one instead of being kept beside it, so the cache of seen items
// grows by what is new. The upstream gets the client's bytes either way.

const MODEL = 'gpt-test-small';
const model = { match: MODEL, context_window: 100_000, max_output_tokens: 200, compaction: { strategy: 'summarize', summarizer: { model: SUMMARIZER } } };

let declared: Harness;
let chunked: Harness;
beforeAll(async () => {
  const options = { fake: { summarizerModel: SUMMARIZER }, models: [model], extra: { background: { enabled: false }, tokens: { memo_max_bytes: 16 * 1024 * 1024 } } };
  declared = await startHarness(options);
  chunked = await startHarness(options);
});
afterAll(async () => {
  await declared?.close();
  await chunked?.close();
});

/** A chat of `turns` questions and answers. */
function body(turns: number): Buffer {
  const messages = [{ role: 'system', content: 'ops' }];
  for (let n = 0; n < turns; n++) messages.push({ role: 'user', content: prose(n, 80) }, { role: 'assistant', content: prose(n + 100, 40) });
  return Buffer.from(JSON.stringify({ model: MODEL, messages: [...messages, { role: 'user', content: 'and now?' }] }));
}

/** Sends `bytes` in a few writes, with or without a content-length; resolves once the reply is read. */
function send(h: Harness, bytes: Buffer, withLength: boolean): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers = {
      'content-type': 'application/json',
      authorization: 'Bearer sk-chunked',
      'x-conversation-id': 'chunked',
      ...(withLength ? { 'content-length': bytes.length } : {}),
    };
    const req = request(`${h.recap.url}/v1/chat/completions`, { method: 'POST', headers });
    req.on('error', reject);
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    void (async () => {
      for (let at = 0; at < bytes.length; at += 4096) {
        req.write(bytes.subarray(at, at + 4096));
        await new Promise((r) => setTimeout(r, 1));
      }
      req.end();
    })();
  });
}

async function seenBytes(h: Harness): Promise<number> {
  const text = await (await fetch(`${h.recap.url}/metrics`)).text();
  return Number(text.match(/^recap_seen_items_bytes (\S+)$/m)?.[1]);
}

describe('a body without a content-length', () => {
  it('takes over the messages its conversation resends, as one of a declared length does, and forwards the same bytes', async () => {
    const grown: Record<string, number[]> = { declared: [], chunked: [] };
    for (const turns of [20, 21, 22, 23]) {
      const bytes = body(turns);
      for (const [name, h, withLength] of [
        ['declared', declared, true],
        ['chunked', chunked, false],
      ] as const) {
        const before = h.fake.chatRequests().length;
        expect(await send(h, bytes, withLength)).toBe(200);
        expect(
          h.fake
            .chatRequests()
            .slice(before)
            .map((r) => r.body),
        ).toEqual([bytes.toString()]);
        grown[name]!.push(await seenBytes(h));
      }
    }
    // Each request after the first adds a question and its answer to a history of 20: the cache grows by what they take, not by another copy of the history.
    expect(grown.chunked).toEqual(grown.declared);
    const steps = grown.chunked!.slice(1).map((b, i) => b - grown.chunked![i]!);
    for (const step of steps) expect(step).toBeLessThan(grown.chunked![0]! / 4);
  });
});
