import type Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHARED_PREFIX_MARKER } from '../src/compaction/prompt.js';
import type { RecordedRequest } from '../src/dev/fake-anthropic.js';
import { type AnthropicHarness, startAnthropicHarness } from './helpers/anthropic-harness.js';

// Issue 36: `summarizer.shared_prefix` on Anthropic's Messages API, with background preparation on:
// a tool-using agent with thinking, marking its system prompt and its newest message for caching
// (as Claude Code does), summarized by its own model through the fake's /v1/messages on the body
// recap forwarded, cut after the span byte for byte, a breakpoint on the span's end; the fake
// (which refuses what Anthropic refuses and caches at breakpoints) reads that prefix from its cache.

const WINDOW = 12_000;
const STEPS = 45;
const KEY = 'sk-ant-shared-prefix';
const SYSTEM: Anthropic.TextBlockParam[] = [
  { type: 'text', text: `You are a careful coding agent. ${'Keep notes short and cite paths. '.repeat(60)}`, cache_control: { type: 'ephemeral' } },
];
const TOOLS: Anthropic.Tool[] = [
  { name: 'read_file', description: 'Read a file.', input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
];

function agentScript(req: RecordedRequest) {
  const last = JSON.stringify(req.json?.messages?.at(-1)?.content ?? '');
  const step = (last.match(/module-(\d+)\.ts/) ?? [])[1];
  const next = step === undefined ? 1 : Number(step) + 1;
  if (next > STEPS) return { thinking: 'All modules read.', text: 'Report: module 7 needs a fix for ORD-4411.' };
  return {
    thinking: `Module ${next} is next.`,
    text: `Reading module ${next}. ${`Module ${next - 1} keeps its checksum c0ffee${next} and calls compute() as before. `.repeat(12)}`,
    toolUses: [{ name: 'read_file', input: { path: `src/module-${next}.ts` } }],
  };
}

const contents = (path: string) => `// ${path}\n${Array.from({ length: 16 }, (_, i) => `export const v${i} = compute(${i}); // ${path} c0ffee${i}`).join('\n')}`;

/** The client's history with a breakpoint on its newest message only, as Claude Code sends it. */
function marked(messages: Anthropic.MessageParam[]): Anthropic.MessageParam[] {
  return messages.map((m, i) => {
    if (i !== messages.length - 1 || typeof m.content === 'string') return m;
    const blocks = m.content.map((b, j) => (j === m.content.length - 1 ? { ...b, cache_control: { type: 'ephemeral' as const } } : b));
    return { ...m, content: blocks } as Anthropic.MessageParam;
  });
}

let h: AnthropicHarness;
beforeAll(async () => {
  h = await startAnthropicHarness({
    model: { context_window: WINDOW, compaction: { strategy: 'summarize', summarizer: { shared_prefix: true }, summary_max_tokens: 400, trigger_ratio: 0.9 } },
    fake: { contextWindow: WINDOW },
  });
});
afterAll(() => h.close());

describe('a summarizer on the shared prefix, Anthropic Messages', () => {
  it('summarizes with the agent’s own model on the forwarded prefix, read from the fake’s cache, inline and in the background', async () => {
    h.fake.setDefault(agentScript);
    const client = h.client({ apiKey: KEY, conversation: 'shared-anthropic' });
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: [{ type: 'text', text: 'Audit every module under src/ for ORD-4411.' }] }];
    for (let turn = 0; turn < STEPS + 3; turn++) {
      const reply = await client.messages.create({
        model: 'claude-test-agent',
        max_tokens: 1024,
        system: SYSTEM,
        tools: TOOLS,
        thinking: { type: 'enabled', budget_tokens: 512 },
        messages: marked(messages),
      });
      messages.push({ role: 'assistant', content: reply.content });
      const uses = reply.content.filter((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
      if (uses.length === 0) break;
      messages.push({ role: 'user', content: uses.map((u) => ({ type: 'tool_result' as const, tool_use_id: u.id, content: contents((u.input as { path: string }).path) })) });
    }
    expect(messages.at(-1)?.role).toBe('assistant');
    expect(h.fake.refusals()).toEqual([]);
    await h.recap.runtime.background.idle();
    const calls = h.fake.summarizerRequests();
    expect(calls.length).toBeGreaterThan(0);
    let readBeyondPinned = 0;
    const before0 = h.fake.messagesRequests()[0]!;
    for (const call of calls) {
      expect(call.json.model).toBe('claude-test-agent');
      // The caller's credential (the upstream has no key of its own), and the client's API version.
      expect([call.headers['x-api-key'], call.headers.authorization]).toContain(call.headers['x-api-key'] ? KEY : `Bearer ${KEY}`);
      expect(call.headers['anthropic-version']).toBe(before0.headers['anthropic-version']);
      expect(call.json.system).toEqual(SYSTEM);
      expect(call.json.tools).toEqual(call.json.tools.length === 1 ? TOOLS : expect.arrayContaining(TOOLS));
      expect(call.json.thinking).toEqual({ type: 'enabled', budget_tokens: 512 });
      expect(call.json.max_tokens).toBeGreaterThan(512);
      const last = call.json.messages.at(-1);
      expect(last.content[0].text.startsWith(SHARED_PREFIX_MARKER)).toBe(true);
      // The request recap forwarded before it: its messages up to the span's last one, byte for byte.
      const before = h.fake
        .messagesRequests()
        .filter((r) => r.receivedAt <= call.receivedAt)
        .at(-1)!;
      const end = call.json.messages.length - 2;
      const lastKept = JSON.stringify(call.json.messages[end]);
      const open = call.body.indexOf('"messages":[');
      const prefix = call.body.slice(open, call.body.indexOf(lastKept, open));
      expect(before.body.slice(before.body.indexOf('"messages":[')).startsWith(prefix)).toBe(true);
      expect(lastKept).toContain('"cache_control":{"type":"ephemeral"}');
      const count = h.fake.countOf(call)!;
      expect(count.cacheRead).toBeGreaterThan(0);
      if (count.cacheRead > count.total / 2) readBeyondPinned++;
    }
    // Background preparation made some of them (rule 10), on the same prefix.
    const metrics = await (await fetch(`${h.recap.url}/metrics`)).text();
    expect(metrics).toMatch(/recap_summarizer_calls_total\{[^}]*mode="background"[^}]*\} [1-9]/);
    // Anthropic reads only prefixes an earlier request wrote at a breakpoint: beyond the pinned block
    // when the span reaches past the first request forwarded after the previous compaction.
    expect(readBeyondPinned).toBeGreaterThan(0);
  }, 60_000);
});
