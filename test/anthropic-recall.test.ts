import type Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../src/dev/fake-anthropic.js';
import { ANTHROPIC_SUMMARIZER, type AnthropicHarness, startAnthropicHarness } from './helpers/anthropic-harness.js';

// recap_recall on the Anthropic route, JSON and streams: once a long agent task was compacted, the
// model recalls an evicted tool result; recap answers it with a tool_result continuation and the
// client gets one reply without the call (no stop_reason tool_use, no recap_recall block, even in
// a stream), usage summed, and the next turn goes on as usual. A whole reply that calls no recall
// goes out as the upstream wrote it; a call naming the tool through `\u` escapes is still recap's.

const WINDOW = 12_000;
const TOOLS: Anthropic.Tool[] = [{ name: 'read_file', description: 'Read a file.', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }];

function step(req: RecordedRequest) {
  const last = JSON.stringify(req.json?.messages?.at(-1)?.content ?? '');
  const n = Number((last.match(/module-(\d+)\.ts/) ?? [])[1] ?? 0) + 1;
  return { thinking: `THINK-${n}`, text: `Reading module ${n}.`, toolUses: [{ name: 'read_file', input: { path: `src/module-${n}.ts` } }] };
}

const contents = (path: string) => {
  const n = path.match(/\d+/)?.[0];
  return Array.from({ length: 16 }, (_, i) => `line ${i} of module-${n}.ts: token SECRET-${n}-${i} value ${Number(n) * 31 + i}`).join('\n');
};

let h: AnthropicHarness;
beforeAll(async () => {
  h = await startAnthropicHarness({
    model: {
      context_window: WINDOW,
      compaction: { strategy: 'summarize', summarizer: { model: ANTHROPIC_SUMMARIZER, upstream: 'anthropic' }, summary_max_tokens: 400, trigger_ratio: 0.9 },
    },
    fake: { contextWindow: WINDOW },
  });
});
afterAll(() => h.close());

async function send(client: Anthropic, messages: Anthropic.MessageParam[], stream: boolean) {
  const params = { model: 'claude-test-recall', max_tokens: 1024, tools: TOOLS, thinking: { type: 'enabled' as const, budget_tokens: 512 }, messages };
  if (!stream) return client.messages.create(params).withResponse();
  const s = client.messages.stream(params);
  const events: string[] = [];
  s.on('streamEvent', (e) => events.push(JSON.stringify(e)));
  const data = await s.finalMessage();
  return { data, response: null, events };
}

describe.each([false, true])('recall of an evicted passage (stream: %s)', (stream) => {
  it('is answered inside the reply: the client never sees recap_recall, and the next turn works', async () => {
    h.fake.reset();
    h.fake.setDefault(step);
    const client = h.client({ conversation: `recall-${stream}` });
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Read every module and remember the SECRET tokens.' }];
    for (let i = 0; i < 30; i++) {
      const { data } = await send(client, messages, stream);
      messages.push({ role: 'assistant', content: data.content });
      const use = data.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use')!;
      messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: contents((use.input as { path: string }).path) }] });
    }
    const before = h.fake.messagesRequests().at(-1)!;
    expect(JSON.stringify(before.json.messages)).not.toContain('SECRET-2-7');
    expect(before.json.tools.map((t: { name: string }) => t.name)).toEqual(['read_file', 'recap_recall']);

    h.fake.enqueue({ thinking: 'I need module 2 back.', text: 'Let me look that up.', toolUses: [{ name: 'recap_recall', input: { query: 'SECRET-2-7' } }] });
    h.fake.enqueue({ text: 'Module 2, line 7 held SECRET-2-7.' });
    const sentBefore = h.fake.messagesRequests().length;
    const reply = await send(client, messages, stream);
    const hops = h.fake.messagesRequests().slice(sentBefore);
    expect(hops).toHaveLength(2);
    // The continuation: the assistant turn with its thinking and the recall call, then its result.
    const continuation = hops[1]!.json.messages;
    expect(continuation.at(-2).content.map((b: { type: string }) => b.type)).toEqual(['thinking', 'text', 'tool_use']);
    expect(continuation.at(-1).content[0]).toMatchObject({ type: 'tool_result', content: expect.stringContaining('SECRET-2-7') });
    expect(h.fake.refusals()).toEqual([]);

    expect(JSON.stringify(reply.data)).not.toContain('recap_recall');
    expect(reply.data.stop_reason).toBe('end_turn');
    expect(reply.data.content.filter((b) => b.type === 'text').map((b) => (b as Anthropic.TextBlock).text)).toContain('Module 2, line 7 held SECRET-2-7.');
    const hopUsage = hops.map((r) => h.fake.countOf(r)!.total);
    const input = reply.data.usage.input_tokens + (reply.data.usage.cache_read_input_tokens ?? 0) + (reply.data.usage.cache_creation_input_tokens ?? 0);
    expect(input).toBe(hopUsage[0]! + hopUsage[1]!);
    if (!stream) expect(reply.response!.headers.get('x-recap-recalls')).toBe('1');
    else expect((reply as { events: string[] }).events.join('\n')).not.toContain('recap_recall');

    // The next turn: the client sends the reply back as it got it, and the agent carries on.
    messages.push({ role: 'assistant', content: reply.data.content }, { role: 'user', content: 'Good. Carry on with module 31.' });
    const next = await send(client, messages, stream);
    expect(next.data.content.some((b) => b.type === 'tool_use')).toBe(true);
    expect(h.fake.refusals()).toEqual([]);
  }, 60_000);
});

describe('a whole reply, read for recap_recall calls, as the upstream wrote it', () => {
  /** A finished task of 50 file reads, sent at once: recap compacts it and offers recap_recall. */
  const task = (): Anthropic.MessageParam[] => [
    { role: 'user', content: 'Read every module and remember the SECRET tokens.' },
    ...Array.from({ length: 50 }, (_, n): Anthropic.MessageParam[] => [
      { role: 'assistant', content: [{ type: 'tool_use', id: `toolu_${n}`, name: 'read_file', input: { path: `src/module-${n}.ts` } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${n}`, content: contents(`src/module-${n}.ts`) }] },
    ]).flat(),
  ];
  /** Bytes JSON would not give back: 1e400, a key twice. */
  const message = (content: string, stop: string) =>
    `{"id":"msg_raw" ,"type":"message","role":"assistant","model":"claude-test-recall","content":${content},"stop_reason":"${stop}","stop_sequence":null,` +
    `"usage":{"input_tokens":10,"output_tokens":5},"x":1e400,"x":-0}`;

  it('that does not call it reaches the client byte for byte, escapes or none', async () => {
    for (const text of ['café ✓ line\\nnext', 'caf\\u00e9, not a call of recap_recall']) {
      h.fake.reset();
      const body = message(`[{"type":"text","text":"${text}"}]`, 'end_turn');
      h.fake.enqueue({ body, headers: { 'content-type': 'application/json' } });
      const res = await fetch(`${h.recap.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-test-key', 'anthropic-version': '2023-06-01', 'x-conversation-id': 'raw-none' },
        body: JSON.stringify({ model: 'claude-test-recall', max_tokens: 1024, tools: TOOLS, messages: task() }),
      });
      expect(h.fake.messagesRequests()).toHaveLength(1);
      expect(h.fake.messagesRequests()[0]!.json.tools.map((t: { name: string }) => t.name)).toEqual(['read_file', 'recap_recall']);
      expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.from(body)), body).toBe(true);
    }
  });

  it('that names it only through `\\u` escapes is answered as a recall call', async () => {
    h.fake.reset();
    const use = '{"type":"tool_use","id":"toolu_esc","name":"recap\\u005frecall","input":{"query":"SECRET-2-7"}}';
    h.fake.enqueue({ body: message(`[${use}]`, 'tool_use'), headers: { 'content-type': 'application/json' } });
    h.fake.enqueue({ text: 'Module 2, line 7 held SECRET-2-7.' });
    const reply = await h.client({ conversation: 'raw-escaped' }).messages.create({ model: 'claude-test-recall', max_tokens: 1024, tools: TOOLS, messages: task() });
    expect(reply.stop_reason).toBe('end_turn');
    expect(reply.content).toMatchObject([{ type: 'text', text: 'Module 2, line 7 held SECRET-2-7.' }]);
    const [first, second] = h.fake.messagesRequests();
    expect(h.fake.messagesRequests()).toHaveLength(2);
    expect(first!.body).not.toContain('SECRET-2-7');
    expect(second!.json.messages.at(-2).content).toMatchObject([{ type: 'tool_use', id: 'toolu_esc', name: 'recap_recall' }]);
    expect(second!.json.messages.at(-1).content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_esc', content: expect.stringContaining('SECRET-2-7') });
  });
});
