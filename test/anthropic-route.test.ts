import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AnthropicHarness, startAnthropicHarness } from './helpers/anthropic-harness.js';

// POST /v1/messages through recap: forwarded to the `api: anthropic` upstream, byte for byte when
// it fits; the other Anthropic routes pass through to it; recap's own errors in Anthropic's shape.

let h: AnthropicHarness;
beforeAll(async () => {
  h = await startAnthropicHarness();
});
afterAll(() => h.close());
beforeEach(() => h.fake.reset());

describe('the Anthropic Messages route', () => {
  it('forwards a request that fits byte for byte, JSON and stream, the reply as the upstream sent it', async () => {
    const body = `{"model":"claude-test-1","max_tokens":256,"system":[{"type":"text","text":"Be brief.","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":"hi"}],"seed_like":9007199254740993,"context_management":{"edits":[{"type":"clear_thinking_20251015","keep":"all"}]}}`;
    for (const stream of [false, true]) {
      h.fake.reset();
      const sent = stream ? body.replace('"max_tokens":256', '"max_tokens":256,"stream":true') : body;
      const res = await fetch(`${h.recap.url}/v1/messages?beta=true`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-caller', 'anthropic-version': '2023-06-01', 'anthropic-beta': 'context-management-2025-06-27' },
        body: sent,
      });
      const text = await res.text();
      expect(res.status).toBe(200);
      expect(res.headers.get('x-recap-action')).toBe('none');
      const [forwarded] = h.fake.messagesRequests();
      expect(forwarded!.body).toBe(sent);
      // Claude Code and the SDK's beta client ask for `?beta=true`: the query goes upstream with the request.
      expect(forwarded!.path).toBe('/v1/messages?beta=true');
      expect(forwarded!.headers).toMatchObject({ 'x-api-key': 'sk-ant-caller', 'anthropic-version': '2023-06-01', 'anthropic-beta': 'context-management-2025-06-27' });
      expect(Buffer.from(text)).toEqual(h.fake.sentBytes(forwarded!));
    }
  });

  it('passes count_tokens and models through to the Anthropic upstream', async () => {
    const client = h.client();
    const counted = await client.messages.countTokens({ model: 'claude-test-1', messages: [{ role: 'user', content: 'hello' }] });
    expect(counted.input_tokens).toBeGreaterThan(0);
    const models = await client.models.list();
    expect(models.data.length).toBeGreaterThan(0);
    expect(h.fake.requests.map((r) => r.path)).toEqual(['/v1/messages/count_tokens', '/v1/models']);
  });
});

describe('a Claude Code history counted before', () => {
  it('goes upstream before it is counted when its bound fits, as sent, and what it did not count is counted first', async () => {
    const { readFileSync } = await import('node:fs');
    const { signThinking } = await import('../src/dev/fake-anthropic-thinking.js');
    const captured = JSON.parse(readFileSync(new URL('./fixtures/claude-code-first-request.json', import.meta.url), 'utf8'));
    const headers = { ...captured.headers, 'x-api-key': 'sk-ant-caller' } as Record<string, string>;
    delete headers['accept-encoding'];
    const lines = () => h.logs.lines.map((l) => JSON.parse(l) as { msg: string; forwardedFirst?: string }).filter((l) => l.msg === 'request');
    const send = async (messages: unknown[]) => {
      const before = lines().length;
      const body = JSON.stringify({ ...captured.body, model: 'claude-test-1', stream: false, messages });
      const res = await fetch(`${h.recap.url}/v1/messages?beta=true`, { method: 'POST', headers, body });
      await res.text();
      while (lines().length === before) await new Promise((r) => setTimeout(r, 5));
      return { status: res.status, body, forwardedFirst: lines().at(-1)!.forwardedFirst, forwarded: h.fake.messagesRequests().at(-1)!.body };
    };
    const opening = captured.body.messages as unknown[];
    const first = await send(opening);
    // First sight: system, tools and messages are bounded by their bytes, which prove nothing.
    expect(first).toMatchObject({ status: 200, forwardedFirst: undefined });
    const reply = {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'The file holds the app.', signature: signThinking('The file holds the app.') },
        { type: 'tool_use', id: 'toolu_01', name: 'Read', input: { file_path: '/src/app.ts' } },
      ],
    };
    const result = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: 'export const app = 1;' }] };
    const next = await send([...opening, reply, result]);
    expect(next).toMatchObject({ status: 200, forwardedFirst: 'below both lines' });
    expect(next.forwarded).toBe(next.body);
    // A screenshot it never counted costs more tokens than bytes: counted first.
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452000003e8000003e8', 'hex').toString('base64');
    const shot = { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } }] };
    const answer = {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Done.', signature: signThinking('Done.') },
        { type: 'text', text: 'Here.' },
      ],
    };
    expect(await send([...opening, reply, result, answer, shot])).toMatchObject({ status: 200, forwardedFirst: undefined });
  });
});

describe('no Anthropic key to an OpenAI host', () => {
  it('refuses a model that resolves to an api: openai upstream, naming the config key, in Anthropic shape', async () => {
    const { startFakeUpstream } = await import('../src/dev/fake-upstream.js');
    const { parseConfig } = await import('../src/config/config.js');
    const { startRecap } = await import('../src/main.js');
    const { createLogger } = await import('../src/observability/logger.js');
    const { LogCapture, TEST_SECRET } = await import('./helpers/harness.js');
    const openai = await startFakeUpstream();
    const config = parseConfig(JSON.stringify({ server: { secret: TEST_SECRET }, upstreams: { openai: { base_url: openai.url } }, models: [] }), 'c.json', {});
    const recap = await startRecap(config, { port: 0, host: '127.0.0.1', logger: createLogger('silent', new LogCapture()) });
    try {
      const res = await fetch(`${recap.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-secret', 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { type: string; error: { type: string; message: string; code: string } };
      expect(body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', code: 'wrong_upstream_api' } });
      expect(body.error.message).toContain('upstreams.<name>.api: anthropic');
      const counted = await fetch(`${recap.url}/v1/messages/count_tokens`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-secret', 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(counted.status).toBe(400);
      expect(openai.requests).toHaveLength(0);
    } finally {
      await recap.close();
      await openai.close();
    }
  });
});

describe('recap count on an Anthropic request', () => {
  it('counts what Claude Code sends: system, tools and messages, the budget from its max_tokens', async () => {
    const { writeFileSync, readFileSync, mkdtempSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const { runCount } = await import('../src/cli/count-command.js');
    const { loadConfig } = await import('../src/config/config.js');
    const captured = JSON.parse(readFileSync(new URL('./fixtures/claude-code-first-request.json', import.meta.url), 'utf8'));
    const file = join(mkdtempSync(join(tmpdir(), 'recap-count-')), 'body.json');
    writeFileSync(file, JSON.stringify(captured.body));
    const out = JSON.parse(await runCount(file, loadConfig('config/recap.yaml', {}), true));
    expect(out.budget).toBe(200_000 - captured.body.max_tokens);
    expect(out.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'system']);
    expect(out.tools_tokens).toBeGreaterThan(5000);
    expect(out.instructions_tokens).toBeGreaterThan(1000);
    expect(out.prompt_tokens).toBe(out.instructions_tokens + out.tools_tokens + out.priming_tokens + out.messages.reduce((n: number, m: { tokens: number }) => n + m.tokens, 0));
  });
});
