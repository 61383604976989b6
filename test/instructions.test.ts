import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUMMARY_MARKER } from '../src/compaction/summary-message.js';
import { prose } from './helpers/conversation.js';
import { type Harness, startHarness, SUMMARIZER, smallModel } from './helpers/harness.js';

// Rule 2 for later instructions: a developer message in the middle of a conversation ("from now
// on, French") is never folded into a summary, where it would read as reference material, but stays
// verbatim, in order, after the summary in every later request; with `keep_instructions: false`
// only the leading block is kept (the summarizer gets the instruction like any message).

type Msg = OpenAI.Chat.Completions.ChatCompletionMessageParam;
const INSTRUCTION = 'From now on, reply in French only, and address the user as "vous".';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    fake: { summarizerModel: SUMMARIZER },
    extra: { background: { enabled: false } },
    models: [smallModel(), { ...smallModel({ keep_instructions: false }), match: 'gpt-test-leading-only' }],
  });
});
afterAll(async () => h?.close());

async function converse(model: string, conversation: string): Promise<Msg[][]> {
  const messages: Msg[] = [{ role: 'system', content: 'You help the ops team.' }];
  const client = h.client({ conversation });
  const before = h.fake.chatRequests().length;
  for (let t = 1; t <= 45; t++) {
    messages.push({ role: 'user', content: prose(t) });
    if (t === 5) messages.push({ role: 'developer', content: INSTRUCTION });
    const { choices } = await client.chat.completions.create({ model, messages });
    messages.push({ role: 'assistant', content: choices[0]!.message.content ?? '' });
  }
  return h.fake
    .chatRequests()
    .slice(before)
    .map((r) => (r.json as { messages: Msg[] }).messages);
}

describe('a developer message in the middle of a conversation', () => {
  it('reaches the model verbatim in every later request, after the summary, once the turn it came with is summarized', async () => {
    const sent = await converse('gpt-test-small', 'french');
    const summarized = sent.filter((messages) => String(messages[1]?.content).startsWith(SUMMARY_MARKER));
    expect(summarized.length).toBeGreaterThan(10);
    sent.slice(4).forEach((messages) => {
      const found = messages.filter((m) => m.role === 'developer');
      expect(found).toEqual([{ role: 'developer', content: INSTRUCTION }]);
    });
    for (const messages of summarized) {
      // Right after the pinned message and the summary, in their order: the opening task (rule 1,
      // turn 1), the instruction (turn 5), then the kept turns.
      expect(messages[2]).toEqual({ role: 'user', content: prose(1) });
      expect(messages[3]).toEqual({ role: 'developer', content: INSTRUCTION });
      expect(messages[4]!.role).toBe('user');
    }
    // The summarizer was never given it as conversation to summarize.
    for (const call of h.fake.summarizerRequests()) expect(call.body).not.toContain('reply in French only');
  });

  it('is summarized like any message with keep_instructions off, leaving only the leading block pinned', async () => {
    const calls = h.fake.summarizerRequests().length;
    const sent = await converse('gpt-test-leading-only', 'french-off');
    const last = sent.at(-1)!;
    expect(String(last[1]?.content).startsWith(SUMMARY_MARKER)).toBe(true);
    expect(last.filter((m) => m.role === 'developer')).toEqual([]);
    expect(
      h.fake
        .summarizerRequests()
        .slice(calls)
        .some((call) => call.body.includes('reply in French only')),
    ).toBe(true);
  });
});
