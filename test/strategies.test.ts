import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { SUMMARY_MARKER } from '../src/compaction/summary-message.js';
import { TEMPLATE_HEADER } from '../src/compaction/template.js';
import { prose } from './helpers/conversation.js';
import { type Harness, type ModelOptions, startHarness, SUMMARIZER } from './helpers/harness.js';

// The strategies other than `summarize`, and the per-tenant summarizer cap that falls back to `window`.

type Msg = OpenAI.Chat.Completions.ChatCompletionMessageParam;
const MODEL = 'gpt-test-small';

let h: Harness;
afterEach(async () => h?.close());

function overBudget(): Msg[] {
  const messages: Msg[] = [{ role: 'system', content: 'ops' }];
  for (let t = 1; t <= 30; t++) messages.push({ role: 'user', content: prose(t) }, { role: 'assistant', content: `ok ${t}` });
  messages.push({ role: 'user', content: 'what next?' });
  return messages;
}

async function start(compaction: ModelOptions['compaction'], extra: Record<string, unknown> = {}) {
  h = await startHarness({
    fake: { summarizerModel: SUMMARIZER },
    extra: { background: { enabled: false }, ...extra },
    models: [{ match: MODEL, context_window: 3000, max_output_tokens: 300, compaction }],
  });
}

async function send(messages: Msg[], apiKey = 'sk-test-key') {
  const { response } = await h.client({ conversation: 'strategy', apiKey }).chat.completions.create({ model: MODEL, messages }).withResponse();
  return { action: response.headers.get('x-recap-action'), body: h.fake.chatRequests().at(-1)!.json as { messages: { role: string; content: string }[] } };
}

describe('strategies', () => {
  it('template: a deterministic rollup capped at max_bytes, no summarizer call', async () => {
    await start({ strategy: 'template', template_max_bytes: 600 });
    const { action, body } = await send(overBudget());
    expect(action).toBe('compacted');
    const summary = body.messages[1]!.content;
    expect(summary.startsWith(SUMMARY_MARKER)).toBe(true);
    expect(summary).toContain(TEMPLATE_HEADER);
    const rollup = summary.slice(summary.indexOf('">\n') + 3, summary.lastIndexOf('\n</recap_summary>'));
    expect(rollup.startsWith(TEMPLATE_HEADER)).toBe(true);
    expect(Buffer.byteLength(rollup)).toBeLessThanOrEqual(600);
    expect(h.fake.summarizerRequests()).toHaveLength(0);
    expect((await send(overBudget())).action).toBe('reused');
  });

  it('window: drops the oldest rounds with no summary, and keeps that cut on later turns', async () => {
    await start({ strategy: 'window' });
    const first = await send(overBudget());
    expect(first.action).toBe('compacted');
    expect(first.body.messages.some((m) => m.content.startsWith(SUMMARY_MARKER))).toBe(false);
    expect(first.body.messages[0]).toEqual({ role: 'system', content: 'ops' });
    expect(first.body.messages[1]!.role).toBe('user');
    expect(first.body.messages.length).toBeLessThan(overBudget().length);
    const again = await send([...overBudget(), { role: 'assistant', content: 'fine' }, { role: 'user', content: 'and then?' }]);
    expect(again.action).toBe('reused');
    expect(again.body.messages[1]).toEqual(first.body.messages[1]);
  });

  it('summarize: a span larger than the summarizer takes goes in chunks, each carrying the previous result', async () => {
    await start({ strategy: 'summarize', summarizer: { model: SUMMARIZER, max_input_tokens: 600 }, summary_max_tokens: 250 });
    const { action } = await send(overBudget());
    expect(action).toBe('compacted');
    const calls = h.fake.summarizerRequests();
    expect(calls.length).toBeGreaterThan(1);
    const firstReply = (JSON.parse(h.fake.sentBytes(calls[0]!).toString()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content;
    expect(calls[1]!.body).toContain(JSON.stringify(firstReply.split('\n')[0]).slice(1, -1));
    // The instructions name the tag too; the input (the user message) carries the block itself.
    expect(calls[0]!.json.messages[1].content).not.toContain('<previous_summary>');
    expect(calls[1]!.json.messages[1].content).toContain('<previous_summary>');
  });

  it('off: forwards as is even over budget', async () => {
    await start({ strategy: 'off' });
    const messages = overBudget();
    const { action, body } = await send(messages);
    expect(action).toBe('none');
    expect(body.messages).toHaveLength(messages.length);
  });

  it('a tenant past its summarizer allowance falls back to window; other tenants still summarize', async () => {
    await start(
      { strategy: 'summarize', summarizer: { model: SUMMARIZER }, summary_max_tokens: 250 },
      { background: { enabled: false, tenant_tokens_per_window: 100, tenant_window_seconds: 3600 } },
    );
    expect((await send(overBudget(), 'sk-tenant-a')).action).toBe('compacted');
    expect(h.fake.summarizerRequests()).toHaveLength(1);
    const more = [
      ...overBudget(),
      ...Array.from({ length: 20 }, (_, i) => [
        { role: 'assistant' as const, content: 'ok' },
        { role: 'user' as const, content: prose(200 + i) },
      ]).flat(),
    ];
    const capped = await send(more, 'sk-tenant-a');
    expect(capped.action).toBe('compacted');
    expect(h.fake.summarizerRequests()).toHaveLength(1);
    const metrics = await (await fetch(`${h.recap.url}/metrics`)).text();
    expect(metrics).toMatch(/recap_tenant_budget_exceeded_total 1/);
    expect((await send(overBudget(), 'sk-tenant-b')).action).toBe('compacted');
    expect(h.fake.summarizerRequests()).toHaveLength(2);
  });
});
