import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logPart } from './helpers/agent-task.js';
import { independentCount } from './helpers/conversation.js';
import { type Harness, SUMMARIZER, startHarness } from './helpers/harness.js';

// Rule 11: before anything is summarized, tool results older than the last few steps are cleared
// (their content replaced by a stub naming the tool and the size), in batches, as part of the
// checkpoint. When that alone brings the view under the target, no summarizer call is made, and the
// next turns reproduce the very same bytes (the upstream's prompt cache keeps working).

type Msg = OpenAI.Chat.Completions.ChatCompletionMessageParam;
const MODEL = 'gpt-test-clearing';
const STUB = '[recap: tool result cleared';
// 155 tokens: under the default clear_tool_results.min_tokens (256), over a stub's size.
const SMALL = (step: number) => `part ${step}: ${'pod web-0 healthy, no restarts; '.repeat(15)}`;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    fake: { summarizerModel: SUMMARIZER },
    extra: { background: { enabled: false } },
    // Recall off: these bytes and counts are clearing's alone (recall's own: test/recall-*.test.ts).
    models: [
      {
        match: MODEL,
        context_window: 9000,
        max_output_tokens: 1000,
        compaction: { strategy: 'summarize', summarizer: { model: SUMMARIZER }, summary_max_tokens: 300 },
        recall: { enabled: false },
      },
    ],
  });
});
afterAll(async () => h?.close());

describe('clearing old tool results', () => {
  it('keeps a long task under budget with no summarizer call, the stubs byte-identical on every later turn', async () => {
    const client = h.client({ conversation: 'clearing-task' });
    const messages: Msg[] = [
      { role: 'system', content: 'You are an ops agent.' },
      { role: 'user', content: 'Read the deploy log part by part and report the root cause.' },
    ];
    const actions: string[] = [];
    const tokensOut: number[] = [];
    for (let step = 0; step < 40; step++) {
      const id = `call_${step}`;
      messages.push({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'read_log', arguments: JSON.stringify({ part: step % 8 }) } }] });
      // 1-2 KB results (about 500-900 tokens): the last few steps stay well under the target;
      // every fifth one is small, under min_tokens.
      messages.push({ role: 'tool', tool_call_id: id, content: step % 5 === 4 ? SMALL(step) : logPart([0, 1, 8, 9][step % 4]!) });
      const { response } = await client.chat.completions.create({ model: MODEL, messages }).withResponse();
      actions.push(response.headers.get('x-recap-action')!);
      // No tools, no max_tokens: the budget is the window less the model's max_output_tokens.
      expect(Number(response.headers.get('x-recap-budget'))).toBe(9000 - 1000);
      tokensOut.push(Number(response.headers.get('x-recap-tokens-out')));
    }
    // Every forwarded request, recounted apart from recap, is within that budget; the history was not.
    const forwarded = h.fake.chatRequests().map((r) => independentCount(r.json.messages));
    expect(forwarded).toHaveLength(40);
    expect(tokensOut).toEqual(forwarded);
    for (const tokens of forwarded) expect(tokens).toBeLessThanOrEqual(9000 - 1000);
    expect(independentCount(messages as never)).toBeGreaterThan(9000 - 1000);
    expect(h.fake.summarizerRequests()).toHaveLength(0);
    expect(actions.filter((a) => a === 'compacted').length).toBeGreaterThanOrEqual(2);
    expect(actions.filter((a) => a === 'reused').length).toBeGreaterThan(actions.filter((a) => a === 'compacted').length);
    expect(actions).not.toContain('degraded');

    // Every stub, wherever it appears, is the same bytes: found in the raw body each time.
    const bodies = h.fake.chatRequests().map((r) => r.body);
    const stubs = new Map<string, string>();
    for (const body of bodies) {
      for (const m of (JSON.parse(body) as { messages: { role: string; tool_call_id?: string; content: string }[] }).messages) {
        if (m.role !== 'tool' || !m.content.startsWith(STUB)) continue;
        const raw = JSON.stringify(m);
        expect(body).toContain(raw);
        expect(stubs.get(m.tool_call_id!) ?? raw).toBe(raw);
        stubs.set(m.tool_call_id!, raw);
      }
    }
    expect(stubs.size).toBeGreaterThan(5);
    // The defaults (the model sets no clear_tool_results): the newest 3 steps' results are never
    // cleared, nor any result under 256 tokens, and each cleared one had at least that many.
    for (const r of h.fake.chatRequests()) {
      const results = (r.json.messages as { role: string; content: string }[]).filter((m) => m.role === 'tool');
      for (const m of results.slice(-3)) expect(m.content.startsWith(STUB)).toBe(false);
      for (const m of results) if (/^part \d+: pod web-0 healthy/.test(m.content)) expect(m.content).toBe(SMALL(Number(/^part (\d+)/.exec(m.content)![1])));
    }
    for (const raw of stubs.values()) expect(Number(/(\d+) tokens/.exec(raw)![1])).toBeGreaterThanOrEqual(256);
    const smallIds = Array.from({ length: 40 }, (_, step) => step)
      .filter((step) => step % 5 === 4)
      .map((step) => `call_${step}`);
    expect(smallIds.filter((id) => stubs.has(id))).toEqual([]);
    expect([...stubs.values()][0]).toMatch(/tool read_log, call call_\d+, \d+ tokens/);

    // Between two clearings the prompt only grows at its end: each turn starts with the turn before.
    let extending = 0;
    for (let i = 1; i < bodies.length; i++) {
      const previous = JSON.stringify((JSON.parse(bodies[i - 1]!) as { messages: unknown[] }).messages).slice(0, -1);
      if (JSON.stringify((JSON.parse(bodies[i]!) as { messages: unknown[] }).messages).startsWith(previous)) extending++;
    }
    expect(extending).toBeGreaterThanOrEqual(bodies.length - 1 - actions.filter((a) => a === 'compacted').length);
  });

  it('never clears the newest 3 steps by default, even when clearing them would spare a summary', async () => {
    const client = h.client({ conversation: 'clearing-newest' });
    const messages: Msg[] = [
      { role: 'system', content: 'You are an ops agent.' },
      { role: 'user', content: 'Read the deploy log part by part and report the root cause.' },
    ];
    const before = h.fake.chatRequests().length;
    const actions: string[] = [];
    for (let step = 0; step < 10; step++) {
      const id = `call_${step}`;
      messages.push({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'read_log', arguments: JSON.stringify({ part: 3 }) } }] });
      // 1,862 tokens each: the newest 3 alone are over the target (60% of 8,000), the newest 2 under it.
      messages.push({ role: 'tool', tool_call_id: id, content: logPart(3) });
      const { response } = await client.chat.completions.create({ model: MODEL, messages }).withResponse();
      actions.push(response.headers.get('x-recap-action')!);
    }
    const forwarded = h.fake
      .chatRequests()
      .slice(before)
      .filter((r) => r.json.model === MODEL)
      .map((r) => (r.json.messages as { role: string; content: string }[]).filter((m) => m.role === 'tool'));
    // Compacted (with a summary: clearing all but the newest 3 does not reach the target), never by
    // clearing one of them.
    expect(actions).toContain('compacted');
    expect(forwarded.some((results) => results.length < 10)).toBe(true);
    for (const results of forwarded) for (const m of results.slice(-3)) expect(m.content).toBe(logPart(3));
  });
});
