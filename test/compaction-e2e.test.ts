import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUMMARY_MARKER } from '../src/compaction/summary-message.js';
import { type Harness, startHarness, SUMMARIZER } from './helpers/harness.js';
import { converse, independentCount, prose } from './helpers/conversation.js';

// Issue 4's end-to-end acceptance: a 60-round conversation on a small context window, through the
// official SDK and the real server.

const CONTEXT = 4000;
const OUTPUT = 500;
const BUDGET = CONTEXT - OUTPUT;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    fake: { summarizerModel: SUMMARIZER },
    // Inline compaction is what this test pins; background preparation has its own test.
    extra: { background: { enabled: false } },
    models: [
      {
        match: 'gpt-test-small',
        context_window: CONTEXT,
        max_output_tokens: OUTPUT,
        compaction: { strategy: 'summarize', summarizer: { model: SUMMARIZER }, summary_max_tokens: 300 },
      },
    ],
  });
});
afterAll(async () => h.close());

describe('compaction end to end', () => {
  it('keeps every upstream request within budget, pinned first, one summary, whole rounds, carry-over', async () => {
    const client = h.client({ conversation: 'e2e-60' });
    const { actions } = await converse(client, { model: 'gpt-test-small', rounds: 60 });
    await h.recap.runtime.background.idle();

    const sent = h.fake.chatRequests().map((r) => r.json as { messages: { role: string; content: string }[] });
    expect(sent).toHaveLength(60);
    let compactedSeen = false;
    sent.forEach((body, turn) => {
      const msgs = body.messages;
      expect(independentCount(msgs)).toBeLessThanOrEqual(BUDGET);
      expect(msgs[0]!.content).toBe('You are a terse assistant for the ops team.');
      const summaries = msgs.filter((m) => m.content.startsWith(SUMMARY_MARKER));
      if (summaries.length) {
        compactedSeen = true;
        expect(summaries).toHaveLength(1);
        expect(msgs[1]!.content.startsWith(SUMMARY_MARKER)).toBe(true);
        // Whole rounds: after the summary, the kept part starts with a user message.
        expect(msgs[2]!.role).toBe('user');
      } else {
        expect(compactedSeen).toBe(false);
      }
      expect(msgs.at(-1)!.content).toContain(`Turn ${turn + 1}:`);
    });
    expect(actions).toContain('compacted');

    const summarizerCalls = h.fake.summarizerRequests();
    expect(summarizerCalls.length).toBeGreaterThanOrEqual(2);
    // Hysteresis: far fewer summarizer calls than over-budget turns.
    expect(summarizerCalls.length).toBeLessThan(60 / 4);
    const first = summarizerCalls[0]!;
    const second = summarizerCalls[1]!;
    const firstSummary = (JSON.parse(h.fake.sentBytes(first).toString()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content;
    const secondInput = (second.json as { messages: { content: string }[] }).messages.map((m) => m.content).join('\n');
    expect(secondInput).toContain(firstSummary.split('\n').find((l) => l.includes('ORD-'))!);
    console.log(`60 rounds: ${summarizerCalls.length} summarizer calls; actions: ${JSON.stringify(countBy(actions))}`);
  });
});

describe('compaction of a streamed request', () => {
  it('compacts a streaming request the same way and relays the stream', async () => {
    const messages: { role: 'system' | 'user' | 'assistant'; content: string }[] = [{ role: 'system', content: 'You are a terse assistant for the ops team.' }];
    for (let t = 1; t <= 40; t++) messages.push({ role: 'user', content: prose(t) }, { role: 'assistant', content: `answer ${t}` });
    messages.push({ role: 'user', content: 'stream the next step' });
    const { data: stream, response } = await h.client({ conversation: 'e2e-stream' }).chat.completions.create({ model: 'gpt-test-small', messages, stream: true }).withResponse();
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(response.headers.get('x-recap-action')).toBe('compacted');
    expect(text.length).toBeGreaterThan(0);
    const sent = h.fake.chatRequests().at(-1)!.json as { stream: boolean; messages: { content: string }[] };
    expect(sent.stream).toBe(true);
    expect(sent.messages[1]!.content.startsWith(SUMMARY_MARKER)).toBe(true);
    expect(independentCount(sent.messages as never)).toBeLessThanOrEqual(BUDGET);
  });
});

function countBy(values: (string | null)[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[String(v)] = (out[String(v)] ?? 0) + 1;
  return out;
}
