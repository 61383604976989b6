import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './helpers/harness.js';

// A model name no config entry matches is forwarded without compaction (issue 26): recap says so
// in its log, once per name, and counts every such request in recap_unmatched_model_requests_total.

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ models: [{ match: 'gpt-test*' }] });
});
afterAll(async () => h?.close());

const warnings = () =>
  h.logs.lines.map((l) => JSON.parse(l) as { level: number; msg: string; model?: string }).filter((l) => l.level === 40 && l.msg.startsWith('no models[] entry matches'));

async function unmatchedMetric(): Promise<number> {
  const text = await (await fetch(`${h.recap.url}/metrics`)).text();
  return Number(
    text
      .split('\n')
      .find((l) => l.startsWith('recap_unmatched_model_requests_total '))
      ?.split(' ')[1] ?? 0,
  );
}

describe('a model name no config entry matches', () => {
  it('is forwarded, warned about once per name in the log and counted every time, on both routes', async () => {
    const client = h.client();
    await client.chat.completions.create({ model: 'gpt-4o-typo', messages: [{ role: 'user', content: 'hi' }] });
    await client.chat.completions.create({ model: 'gpt-4o-typo', messages: [{ role: 'user', content: 'again' }] });
    await client.responses.create({ model: 'o9-unknown', input: [{ role: 'user', content: 'hi' }] });
    await client.chat.completions.create({ model: 'gpt-test-known', messages: [{ role: 'user', content: 'hi' }] });
    expect(h.fake.chatRequests().map((r) => r.json.model)).toEqual(['gpt-4o-typo', 'gpt-4o-typo', 'gpt-test-known']);
    expect(warnings().map((w) => w.model)).toEqual(['gpt-4o-typo', 'o9-unknown']);
    expect(await unmatchedMetric()).toBe(3);
  });
});
