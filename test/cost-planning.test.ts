import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prose } from './helpers/conversation.js';
import { type Harness, SUMMARIZER, startHarness } from './helpers/harness.js';
import { rawRequest } from './helpers/plain-request.js';
import { waitFor } from './helpers/redis-process.js';

// Issue 36: with `pricing`, a compaction happens when it pays for itself or the window forces it,
// and the request's event says what it was expected to save and cost.

type Msg = OpenAI.Chat.Completions.ChatCompletionMessageParam;
const KEY = 'sk-cost-planning-test';
// Budget 2,700: cuts aim at 0.3 × 2,700 = 810 tokens, at least 270 apart.
const compaction = { strategy: 'summarize', summarizer: { model: SUMMARIZER, pricing: { input: 0.2, cached_input: 0.1, output: 0.8 } }, summary_max_tokens: 250 };
const model = (match: string, pricing?: Record<string, number>) => ({ match, context_window: 3000, max_output_tokens: 300, compaction, ...(pricing ? { pricing } : {}) });

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    fake: { summarizerModel: SUMMARIZER },
    extra: { background: { enabled: false } },
    models: [model('gpt-test-priced', { input: 1, cached_input: 0.5, output: 4 }), model('gpt-test-tokens')],
  });
});
afterAll(async () => h.close());

interface Turn {
  action: string;
  tokensIn: number;
  budget: number;
}

async function converse(modelName: string, conversation: string, turns: number, words: number): Promise<Turn[]> {
  const client = h.client({ apiKey: KEY, conversation });
  const messages: Msg[] = [{ role: 'system', content: 'cost planning' }];
  const out: Turn[] = [];
  for (let t = 1; t <= turns; t++) {
    messages.push({ role: 'user', content: prose(t, words) });
    const { data, response } = await client.chat.completions.create({ model: modelName, messages }).withResponse();
    out.push({
      action: response.headers.get('x-recap-action')!,
      tokensIn: Number(response.headers.get('x-recap-tokens-in')),
      budget: Number(response.headers.get('x-recap-budget')),
    });
    messages.push({ role: 'assistant', content: data.choices[0]!.message.content ?? '' });
  }
  return out;
}

interface Event {
  cost: number;
  cost_decision: { saves: number; costs: number; calls: number; verdict: string };
}

async function events(conversation: string, count: number): Promise<Event[]> {
  let list: Event[] = [];
  await waitFor(
    `${count} events of ${conversation}`,
    async () => {
      const r = await rawRequest(h.recap.url, { method: 'GET', target: `/recap/v1/conversations/${conversation}/events?limit=200`, headers: { authorization: `Bearer ${KEY}` } });
      list = r.status === 200 ? JSON.parse(r.body).events : [];
      return list.length >= count;
    },
    5_000,
  );
  return list.reverse();
}

describe('planning by cost', () => {
  it('makes the first cut when the window forces it, later ones below the window once they pay, and the event says what each saves and costs', async () => {
    const priced = await converse('gpt-test-priced', 'cost-pays', 60, 20);
    const list = await events('cost-pays', priced.length);
    // The first cut risks money the conversation has not saved yet: made only when the window forces it.
    const first = priced.findIndex((t) => t.action === 'compacted');
    expect(first).toBeGreaterThan(0);
    expect(list[first]!.cost_decision.verdict).toBe('window');
    // Later cuts may risk what the first one saved: below the window (verdict not `window`), when they pay over the calls expected.
    const early = priced.findIndex((t, i) => i > first && t.action === 'compacted');
    expect(early).toBeGreaterThan(first);
    const decision = list[early]!.cost_decision;
    expect(decision.verdict).toBe('pays');
    expect(decision.calls).toBeGreaterThan(1);
    expect(decision.saves).toBeGreaterThanOrEqual(decision.costs);
    expect(list[early]!.cost).toBeGreaterThan(0);
    // The same conversation without pricing always waits for the window.
    const plain = await converse('gpt-test-tokens', 'cost-tokens', 60, 20);
    expect(plain.some((t) => t.action === 'compacted')).toBe(true);
    expect(plain.filter((t) => t.action === 'compacted' && t.tokensIn < 0.9 * t.budget)).toEqual([]);
  });

  it('does not compact early in a conversation what would not pay back, and compacts when the window forces it', async () => {
    // Two big turns: past where a long conversation would be cut, but two calls cannot pay back a cut.
    const turns = await converse('gpt-test-priced', 'cost-young', 3, 900);
    expect(turns[1]!.action).toBe('none');
    expect(turns[1]!.tokensIn).toBeLessThan(turns[1]!.budget);
    // The third does not fit: compacted whatever it costs.
    expect(turns[2]!.tokensIn).toBeGreaterThan(turns[2]!.budget);
    expect(turns[2]!.action).toBe('compacted');
    const list = await events('cost-young', 3);
    expect(list[2]!.cost_decision.verdict).toBe('window');
  });
});
