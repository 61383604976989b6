import type Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countInput } from '../src/dev/fake-anthropic-count.js';
import type { RecordedRequest } from '../src/dev/fake-anthropic.js';
import { countBreakpoints } from '../src/wire/messages/breakpoints.js';
import { ANTHROPIC_SUMMARIZER, type AnthropicHarness, startAnthropicHarness } from './helpers/anthropic-harness.js';

// A client that marks its system prompt and the reference document it pasted early on (as clients
// that cache a document do), through recap to the fake Anthropic upstream that simulates the
// prompt cache at the breakpoints. Once recap evicts the document, the client's breakpoint on it is
// gone; recap moves it to the end of its summary, so every later turn of that summary reads tools,
// system and summary from the cache, where it would read the system prompt alone.

const WINDOW = 8_000;
const MAX_TOKENS = 512;
const TURNS = 40;
const cc = { type: 'ephemeral' as const };
const SYSTEM: Anthropic.TextBlockParam[] = [
  { type: 'text', text: `You answer questions about the payments runbook. ${'Quote the runbook section you rely on. '.repeat(120)}`, cache_control: cc },
];
const DOC = `Runbook RB-7781, settlement incidents. ${'Step: check the ledger batch, compare totals, page the on-call owner. '.repeat(90)}`;

function question(n: number): string {
  return `Question ${n}: what does the runbook say about case C-${1000 + n}? ${'Give the section, the owner and the next check. '.repeat(12)}`;
}

const answer = (req: RecordedRequest) => {
  const last = JSON.stringify(req.json?.messages?.at(-1)?.content ?? '');
  const n = (last.match(/Question (\d+)/) ?? [])[1] ?? '0';
  return { text: `Answer ${n}: section 4 of RB-7781 applies; the owner is the settlement on-call, next check the batch totals. ${'Noted. '.repeat(40)}` };
};

/** Tokens (the fake's count) of the request up to and including its first message: tools, system and recap's summary. */
const throughFirstMessage = (r: RecordedRequest) => countInput({ model: r.json.model, tools: r.json.tools, system: r.json.system, messages: r.json.messages.slice(0, 1) });
const throughSystem = (r: RecordedRequest) => countInput({ model: r.json.model, tools: r.json.tools, system: r.json.system, messages: [] });
const summaryOf = (r: RecordedRequest): string | null => {
  const first = JSON.stringify(r.json.messages[0]);
  return first.includes('[recap:summary v1]') ? first.replace(/"cache_control":\{[^}]*\},?/, '') : null;
};

let h: AnthropicHarness;
beforeAll(async () => {
  h = await startAnthropicHarness({
    model: {
      context_window: WINDOW,
      max_output_tokens: MAX_TOKENS,
      compaction: { strategy: 'summarize', summarizer: { model: ANTHROPIC_SUMMARIZER, upstream: 'anthropic' }, summary_max_tokens: 300, trigger_ratio: 0.9 },
      recall: { enabled: false },
    },
    // Inline only: a turn that reuses a checkpoint then never brings a new cut a background job made.
    extra: { background: { enabled: false } },
    fake: { contextWindow: WINDOW },
  });
  h.fake.setDefault(answer);
});
afterAll(() => h.close());

describe('Anthropic breakpoints after a rewrite', () => {
  it('moves the breakpoint of an evicted document to the end of the summary: the next turns read tools, system and summary from the cache', async () => {
    const client = h.client({ conversation: 'breakpoints-doc' });
    const messages: Anthropic.MessageParam[] = [
      { role: 'user', content: 'Help me with settlement incidents, using the runbook I paste next.' },
      { role: 'assistant', content: 'Paste it.' },
      { role: 'user', content: [{ type: 'text', text: DOC, cache_control: cc }] },
      { role: 'assistant', content: 'Read it.' },
    ];
    for (let n = 1; n <= TURNS; n++) {
      messages.push({ role: 'user', content: question(n) });
      const reply = await client.messages.create({ model: 'claude-test-doc', max_tokens: MAX_TOKENS, system: SYSTEM, messages });
      messages.push({ role: 'assistant', content: reply.content });
    }
    expect(h.fake.refusals()).toEqual([]);
    const forwarded = h.fake.messagesRequests();
    for (const r of forwarded) {
      // Never above the client's two breakpoints, nor Anthropic's 4.
      const marks = countBreakpoints(r.json.system) + r.json.messages.reduce((n: number, m: Anthropic.MessageParam) => n + countBreakpoints(m.content), 0);
      expect(marks).toBeLessThanOrEqual(2);
    }
    // Turns that carry the same summary as the turn before them: no new cut.
    const reused = forwarded.filter((r, i) => i > 0 && summaryOf(r) !== null && summaryOf(r) === summaryOf(forwarded[i - 1]!));
    expect(reused.length).toBeGreaterThan(5);
    for (const r of reused) {
      const mark = (r.json.messages[0].content as { cache_control?: unknown }[]).at(-1)?.cache_control;
      expect(mark).toEqual(cc);
      const read = h.fake.countOf(r)!.cacheRead;
      expect(read).toBeGreaterThanOrEqual(throughFirstMessage(r));
      expect(read).toBeGreaterThan(throughSystem(r));
    }
  }, 60_000);

  it('marks nothing more for a client that loses none (system and newest message, as Claude Code), and every turn that makes no new cut reads the whole previous prompt', async () => {
    h.fake.reset();
    const tools: Anthropic.Tool[] = [{ name: 'read_file', description: 'Read a file.', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }];
    h.fake.setDefault((req) => {
      const n = (JSON.stringify(req.json?.messages?.at(-1)?.content ?? '').match(/file-(\d+)/) ?? [])[1];
      const next = Number(n ?? 0) + 1;
      return next > TURNS ? { text: 'Done.' } : { text: `Reading ${next}.`, toolUses: [{ name: 'read_file', input: { path: `file-${next}` } }] };
    });
    const client = h.client({ conversation: 'breakpoints-agent' });
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: [{ type: 'text', text: 'Read every file and report the release code.' }] }];
    // The client's newest message carries its one message breakpoint, as Claude Code's does.
    const marked = (): Anthropic.MessageParam[] =>
      messages.map((m, i) =>
        i < messages.length - 1 || typeof m.content === 'string'
          ? m
          : { ...m, content: m.content.map((b, j) => (j === m.content.length - 1 ? { ...b, cache_control: cc } : b)) as never },
      );
    const actions: string[] = [];
    for (let turn = 0; turn <= TURNS; turn++) {
      const { data, response } = await client.messages.create({ model: 'claude-test-agent', max_tokens: MAX_TOKENS, system: SYSTEM, tools, messages: marked() }).withResponse();
      actions.push(response.headers.get('x-recap-action')!);
      messages.push({ role: 'assistant', content: data.content });
      const uses = data.content.filter((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
      if (uses.length === 0) break;
      const path = (uses[0]!.input as { path: string }).path;
      messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: uses[0]!.id, content: `${path}: ${'line of the file, checksum 0xBEEF; '.repeat(60)}` }] });
    }
    expect(h.fake.refusals()).toEqual([]);
    const forwarded = h.fake.messagesRequests();
    expect(actions).toContain('compacted');
    forwarded.forEach((r, i) => {
      const marks = countBreakpoints(r.json.system) + r.json.messages.reduce((n: number, m: Anthropic.MessageParam) => n + countBreakpoints(m.content), 0);
      expect(marks).toBe(2);
      if (i > 0 && actions[i] === 'reused' && actions[i - 1] !== 'none') expect(h.fake.countOf(r)!.cacheRead).toBe(h.fake.countOf(forwarded[i - 1]!)!.total);
    });
    expect(actions.filter((a, i) => a === 'reused' && actions[i - 1] !== 'none').length).toBeGreaterThan(5);
  }, 60_000);
});
