import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logPart } from './helpers/agent-task.js';
import { type Harness, SUMMARIZER, startHarness } from './helpers/harness.js';

// A model whose token counts recap calibrates from the upstream's reported usage (`encoding:
// estimate`, any model recap ships no tokenizer for): the calibration moves with every reply, and a
// cleared result's stub must not move with it. A stub that stated the calibrated count was rewritten
// turn by turn, and every turn then missed the provider's prompt cache from the first stub on.

type Msg = OpenAI.Chat.Completions.ChatCompletionMessageParam;
const MODEL = 'gpt-test-calibrated';
const STUB = '[recap: tool result cleared';

let h: Harness;
let replies = 0;
beforeAll(async () => {
  h = await startHarness({
    // The upstream's count is the JSON's length / 4, off by a few percent that change every reply.
    fake: { summarizerModel: SUMMARIZER, promptTokens: (r) => Math.ceil((JSON.stringify(r.json.messages).length / 4) * (1 + 0.08 * Math.sin(++replies))) },
    extra: { background: { enabled: false } },
    models: [
      {
        match: MODEL,
        context_window: 9000,
        max_output_tokens: 1000,
        encoding: 'estimate',
        compaction: { strategy: 'summarize', summarizer: { model: SUMMARIZER }, summary_max_tokens: 300 },
        recall: { enabled: false },
      },
    ],
  });
});
afterAll(async () => h?.close());

describe('stubs of cleared results under calibration', () => {
  it('writes every stub the same on every turn, so each turn that makes no new cut sends the previous one’s messages first', async () => {
    const client = h.client({ conversation: 'stub-calibration' });
    const messages: Msg[] = [
      { role: 'system', content: 'You are an ops agent.' },
      { role: 'user', content: 'Read the deploy log part by part and report the root cause.' },
    ];
    const actions: string[] = [];
    for (let step = 0; step < 30; step++) {
      const id = `call_${step}`;
      messages.push({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'read_log', arguments: JSON.stringify({ part: step % 8 }) } }] });
      messages.push({ role: 'tool', tool_call_id: id, content: logPart([0, 1, 8, 9][step % 4]!) });
      const { response } = await client.chat.completions.create({ model: MODEL, messages }).withResponse();
      actions.push(response.headers.get('x-recap-action')!);
    }
    const sent = h.fake.chatRequests().map((r) => r.json.messages as { role: string; tool_call_id?: string; content: string }[]);
    const stubs = new Map<string, string>();
    for (const view of sent) {
      for (const m of view.filter((x) => x.role === 'tool' && x.content.startsWith(STUB))) {
        expect(stubs.get(m.tool_call_id!) ?? m.content).toBe(m.content);
        stubs.set(m.tool_call_id!, m.content);
      }
    }
    expect(stubs.size).toBeGreaterThan(5);
    const reused = sent.filter((_, i) => i > 0 && actions[i] === 'reused');
    expect(reused.length).toBeGreaterThan(5);
    sent.forEach((view, i) => {
      if (i > 0 && actions[i] === 'reused') expect(view.slice(0, sent[i - 1]!.length)).toEqual(sent[i - 1]);
    });
  });
});
