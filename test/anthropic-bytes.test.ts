import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ANTHROPIC_SUMMARIZER, type AnthropicHarness, startAnthropicHarness } from './helpers/anthropic-harness.js';

// What a compacted /v1/messages request changes: `messages` only (and, with recall on, one tool
// appended after the client's, as bytes). Every other member reaches Anthropic as the client wrote
// it, numbers like 1.0e0 included; no view leaves recap with more than 4 cache_control breakpoints.

const WINDOW = 12_000;
const cc = { type: 'ephemeral' };

function history(breakpointsInMessages: number, steps: number): object[] {
  const messages: object[] = [{ role: 'user', content: [{ type: 'text', text: 'Audit the modules for ORD-4411.' }] }];
  for (let n = 1; n <= steps; n++) {
    const id = `toolu_${n}`;
    messages.push({
      role: 'assistant',
      content: [
        { type: 'text', text: `Reading module ${n}.` },
        { type: 'tool_use', id, name: 'read_file', input: { path: `src/m${n}.ts` } },
      ],
    });
    const body = Array.from({ length: 14 }, (_, i) => `export const v${i} = ${n * 100 + i}; // module ${n}`).join('\n');
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: body }] });
  }
  // The client's message breakpoints: on its newest messages, as Claude Code puts them.
  for (let k = 0; k < breakpointsInMessages; k++) {
    const m = messages[messages.length - 1 - 2 * k] as { content: { cache_control?: object }[] };
    m.content[0]!.cache_control = cc;
  }
  return messages;
}

function clientBody(systemBreakpoints: number, messageBreakpoints: number, steps = 50): string {
  const system = [0, 1, 2].map((i) => ({ type: 'text', text: `System part ${i}.`, ...(i < systemBreakpoints ? { cache_control: cc } : {}) }));
  const tools = [{ name: 'read_file', description: 'Read a file.', input_schema: { type: 'object' } }];
  const head = `{"model":"claude-test-bytes","max_tokens":1024,"temperature":1.0e0,"system":${JSON.stringify(system)},"tools":${JSON.stringify(tools)},"context_management":{"edits":[{"type":"clear_thinking_20251015","keep":"all"}]},"metadata":{"user_id":"u-1"},"messages":`;
  return `${head}${JSON.stringify(history(messageBreakpoints, steps))}}`;
}

const breakpoints = (body: string) => body.split('"cache_control"').length - 1;

let h: AnthropicHarness;
beforeAll(async () => {
  h = await startAnthropicHarness({
    model: {
      context_window: WINDOW,
      compaction: { strategy: 'summarize', summarizer: { model: ANTHROPIC_SUMMARIZER, upstream: 'anthropic' }, summary_max_tokens: 400, trigger_ratio: 0.9 },
      recall: { enabled: false },
    },
    fake: { contextWindow: WINDOW },
  });
});
afterAll(() => h.close());
beforeEach(async () => {
  // The estimate is calibrated from the usage Anthropic reports: a first request of the same kind
  // that fits teaches it this content's ratio (a fresh process counts code and numbers ~35% low, and each reply moves the factor by at most ~5%).
  for (let i = 0; i < 15; i++) expect((await post(clientBody(1, 1, 20), `warm-${i}`)).status).toBe(200);
  h.fake.reset();
});

async function post(body: string, conversation: string) {
  return fetch(`${h.recap.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-bytes', 'anthropic-version': '2023-06-01', 'x-conversation-id': conversation },
    body,
  });
}

describe('a compacted Anthropic request', () => {
  it('changes only `messages`: every other member as the client wrote it, in order', async () => {
    const body = clientBody(1, 1);
    const res = await post(body, 'bytes-1');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-recap-action')).toBe('compacted');
    const forwarded = h.fake.messagesRequests()[0]!.body;
    const head = body.slice(0, body.indexOf('"messages":') + '"messages":'.length);
    expect(forwarded.startsWith(head)).toBe(true);
    expect(forwarded.endsWith(']}')).toBe(true);
    expect(forwarded.length).toBeLessThan(body.length);
    const messages = JSON.parse(forwarded).messages;
    expect(messages[0].content[0].text).toContain('[recap:summary v1]');
    expect(messages[1]).toEqual(JSON.parse(body).messages[0]);
    expect(h.fake.refusals()).toEqual([]);
  });

  it('never carries more breakpoints than the client sent, nor more than 4', async () => {
    // 3 on system, 3 on the newest messages: the client's own request has 6 (Anthropic refuses it).
    const res = await post(clientBody(3, 3), 'bytes-2');
    expect(res.status).toBe(200);
    const forwarded = h.fake.messagesRequests()[0]!.body;
    expect(breakpoints(forwarded)).toBe(4);
    const messages = JSON.parse(forwarded).messages as { content: { cache_control?: object }[] }[];
    // The newest message keeps its breakpoint: the oldest ones went.
    expect(messages.at(-1)!.content[0]!.cache_control).toEqual(cc);
    // 2 of the client's: their count is kept, whatever the view evicted.
    h.fake.reset();
    const two = await post(clientBody(1, 1), 'bytes-3');
    expect(two.status).toBe(200);
    expect(breakpoints(h.fake.messagesRequests()[0]!.body)).toBeLessThanOrEqual(2);
    expect(h.fake.refusals()).toEqual([]);
  });
});

describe('audit mode on the Anthropic route', () => {
  it("forwards the client's bytes and says what recap would have done", async () => {
    const audit = await startAnthropicHarness({
      model: {
        context_window: WINDOW,
        compaction: { strategy: 'summarize', mode: 'audit', summarizer: { model: ANTHROPIC_SUMMARIZER, upstream: 'anthropic' }, trigger_ratio: 0.5, target_ratio: 0.3 },
      },
    });
    try {
      const body = clientBody(1, 1, 50);
      const res = await fetch(`${audit.recap.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-audit', 'anthropic-version': '2023-06-01', 'x-conversation-id': 'audit-1' },
        body,
      });
      expect(res.status).toBe(200);
      expect(['compacted', 'cleared']).toContain(res.headers.get('x-recap-audit'));
      expect(Number(res.headers.get('x-recap-tokens-out'))).toBeLessThan(Number(res.headers.get('x-recap-tokens-in')));
      expect(audit.fake.messagesRequests()[0]!.body).toBe(body);
      expect(audit.fake.summarizerRequests()).toHaveLength(0);
    } finally {
      await audit.close();
    }
  });
});
