import type Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../src/dev/fake-anthropic.js';
import { ANTHROPIC_SUMMARIZER, type AnthropicHarness, startAnthropicHarness } from './helpers/anthropic-harness.js';

// A 100+ step tool-using agent with thinking on a small window, through recap to the fake
// Anthropic upstream with the official SDK, JSON and streaming: every forwarded request within the
// window by the fake's own count, system and tools as sent, the task kept, every tool_use answered
// in the next message, every kept assistant turn byte-identical (the fake verifies each thinking
// signature), summaries made through the fake's /v1/messages without any thinking text.

const WINDOW = 12_000;
const MAX_TOKENS = 1024;
const STEPS = 110;
const TASK = 'Audit every module under src/ for the ticket ORD-4411 and report which ones need a fix.';
const SYSTEM: Anthropic.TextBlockParam[] = [
  { type: 'text', text: 'You are a careful coding agent.' },
  { type: 'text', text: 'Use read_file to read files. Keep notes short.', cache_control: { type: 'ephemeral' } },
];
const TOOLS: Anthropic.Tool[] = [
  { name: 'read_file', description: 'Read a file of the repository.', input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
];

const COMPACTION = { strategy: 'summarize', summarizer: { model: ANTHROPIC_SUMMARIZER, upstream: 'anthropic' }, summary_max_tokens: 400 };
const thinkingOf = (step: number) => `THINK-${step}: module ${step} is next; I will read it and compare with the earlier ones.`;

/** The fake plays the model: one read_file per step (with thinking), then the report. */
function agentScript(req: RecordedRequest) {
  const messages: Anthropic.MessageParam[] = req.json?.messages ?? [];
  const last = messages.at(-1);
  const lastText = JSON.stringify(last?.content ?? '');
  const step = (lastText.match(/module-(\d+)\.ts/) ?? [])[1];
  const next = step === undefined ? 1 : Number(step) + 1;
  if (next > STEPS) return { thinking: 'THINK-final: all modules read.', text: 'Report: modules 7 and 42 need a fix for ORD-4411.' };
  return { thinking: thinkingOf(next), text: `Reading module ${next}.`, toolUses: [{ name: 'read_file', input: { path: `src/module-${next}.ts` } }] };
}

function fileContents(path: string): string {
  const n = path.match(/\d+/)?.[0];
  const lines = Array.from({ length: 18 }, (_, i) => `export const value${i} = compute(${n}, ${i}); // part of module-${n}.ts, checksum c0ffee${n}${i}`);
  return `// ${path}\n${lines.join('\n')}`;
}

async function runAgent(client: Anthropic, stream: boolean): Promise<{ messages: Anthropic.MessageParam[]; final: Anthropic.Message }> {
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: TASK }];
  for (let turn = 0; turn < STEPS + 5; turn++) {
    const params = { model: 'claude-test-agent', max_tokens: MAX_TOKENS, system: SYSTEM, tools: TOOLS, thinking: { type: 'enabled' as const, budget_tokens: 512 }, messages };
    const reply = stream ? await client.messages.stream(params).finalMessage() : await client.messages.create(params);
    messages.push({ role: 'assistant', content: reply.content });
    const uses = reply.content.filter((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
    if (uses.length === 0) return { messages, final: reply };
    messages.push({ role: 'user', content: uses.map((u) => ({ type: 'tool_result' as const, tool_use_id: u.id, content: fileContents((u.input as { path: string }).path) })) });
  }
  throw new Error('the agent did not finish');
}

let h: AnthropicHarness;
beforeAll(async () => {
  // The estimate is calibrated, not exact: a trigger just under the budget leaves it a margin.
  h = await startAnthropicHarness({ model: { context_window: WINDOW, compaction: { ...COMPACTION, trigger_ratio: 0.9 } }, fake: { contextWindow: WINDOW } });
});
afterAll(() => h.close());

describe.each([false, true])('a 110-step agent with thinking on a 12k window (stream: %s)', (stream) => {
  it('finishes within the window, its turns intact, compacted through the fake summarizer', async () => {
    h.fake.reset();
    h.fake.setDefault(agentScript);
    const { messages, final } = await runAgent(h.client({ conversation: `agent-${stream}` }), stream);
    expect(final.content.find((b) => b.type === 'text')).toMatchObject({ text: expect.stringContaining('ORD-4411') });
    expect(h.fake.refusals()).toEqual([]);
    const forwarded = h.fake.messagesRequests();
    expect(forwarded.length).toBeGreaterThanOrEqual(STEPS + 1);
    const clientAssistants = new Set(messages.filter((m) => m.role === 'assistant').map((m) => JSON.stringify(m)));
    let compacted = 0;
    for (const r of forwarded) {
      const count = h.fake.countOf(r)!;
      expect(count.total + MAX_TOKENS).toBeLessThanOrEqual(WINDOW);
      expect(r.json.system).toEqual(SYSTEM);
      expect(r.json.tools.slice(0, 1)).toEqual(TOOLS);
      const texts = r.json.messages.map((m: Anthropic.MessageParam) => JSON.stringify(m.content));
      expect(texts.some((t: string) => t.includes(TASK))).toBe(true);
      if (texts[0].includes('[recap:summary v1]')) compacted++;
      for (const m of r.json.messages.filter((x: Anthropic.MessageParam) => x.role === 'assistant')) {
        const bytes = JSON.stringify(m);
        expect(clientAssistants.has(bytes)).toBe(true);
        expect(r.body.includes(bytes)).toBe(true);
      }
    }
    expect(compacted).toBeGreaterThanOrEqual(10);
    const summaries = h.fake.summarizerRequests();
    expect(summaries.length).toBeGreaterThanOrEqual(2);
    for (const s of summaries) expect(s.body).not.toContain('THINK-');
  }, 120_000);
});
