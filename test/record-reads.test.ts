import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prose } from './helpers/conversation.js';
import { type Harness, startHarness, SUMMARIZER, smallModel } from './helpers/harness.js';
import { storeOperations } from './helpers/store-operations.js';

// The store is read once per request that needs its record, and not at all for one forwarded
// first (issue 28): the read of a request that could not be shown to fit starts while it is being
// counted, and the engine takes that read instead of making another.

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ fake: { summarizerModel: SUMMARIZER }, extra: { background: { enabled: false } }, models: [smallModel()] });
});
afterAll(async () => h?.close());

const loads = () => storeOperations(h.recap, 'load');

async function send(conversation: string, words: number) {
  const before = await loads();
  const { response } = await h
    .client({ conversation })
    .chat.completions.create({
      model: 'gpt-test-small',
      messages: [
        { role: 'system', content: 'You are an ops agent.' },
        { role: 'user', content: prose(1, words) },
      ],
    })
    .withResponse();
  return { reads: (await loads()) - before, action: response.headers.get('x-recap-action'), tokensIn: Number(response.headers.get('x-recap-tokens-in')) };
}

describe('reading a conversation record', () => {
  it('reads it once for a request past the prepare line, and never for one forwarded first', async () => {
    const small = await send('reads-small', 20);
    expect(small).toMatchObject({ reads: 0, action: 'none' });
    // 2,700 tokens of budget: a history past 80% of it, which its bytes alone could not show to fit.
    const near = await send('reads-near', 2150);
    expect(near.tokensIn).toBeGreaterThan(0.8 * 2700);
    expect(near.tokensIn).toBeLessThan(2700);
    expect(near).toMatchObject({ reads: 1, action: 'none' });
  });
});
