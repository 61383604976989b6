import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeAnthropic, startFakeAnthropic } from './fake-anthropic.js';

// The fake Anthropic upstream, driven by the official SDK as recap's clients drive the real API.

let fake: FakeAnthropic;
let client: Anthropic;

beforeAll(async () => {
  fake = await startFakeAnthropic({ summarizerModel: 'claude-haiku-fake' });
  client = new Anthropic({ baseURL: fake.origin, apiKey: 'sk-ant-test', maxRetries: 0 });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const tools: Anthropic.Tool[] = [{ name: 'read_file', description: 'Read a file', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }];

describe('fake Anthropic upstream', () => {
  it('answers a JSON request with signed thinking, text and tool_use, and takes the turn back verified', async () => {
    fake.enqueue({ thinking: 'I should read the file.', text: 'Reading it.', toolUses: [{ name: 'read_file', input: { path: 'src/a.ts' } }] });
    const first = await client.messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      tools,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: [{ role: 'user', content: 'Read src/a.ts' }],
    });
    expect(first.stop_reason).toBe('tool_use');
    expect(first.content.map((b) => b.type)).toEqual(['thinking', 'text', 'tool_use']);
    const use = first.content[2] as Anthropic.ToolUseBlock;
    const next = await client.messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      tools,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: [
        { role: 'user', content: 'Read src/a.ts' },
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'export const a = 1;' }] },
      ],
    });
    expect(next.stop_reason).toBe('end_turn');
    expect(fake.refusals()).toEqual([]);
  });

  it('refuses a thinking block whose text was altered, as Anthropic refuses a bad signature', async () => {
    fake.enqueue({ thinking: 'Plan: read the file.', toolUses: [{ name: 'read_file', input: { path: 'x' } }] });
    const first = await client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 512, tools, messages: [{ role: 'user', content: 'go' }] });
    const altered = first.content.map((b) => (b.type === 'thinking' ? { ...b, thinking: `${b.thinking} ` } : b));
    const use = first.content.find((b) => b.type === 'tool_use') as Anthropic.ToolUseBlock;
    await expect(
      client.messages.create({
        model: 'claude-sonnet-4-5',
        max_tokens: 512,
        tools,
        messages: [
          { role: 'user', content: 'go' },
          { role: 'assistant', content: altered },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'ok' }] },
        ],
      }),
    ).rejects.toMatchObject({ status: 400, message: expect.stringContaining('Invalid `signature` in `thinking` block') });
  });

  it('streams typed SSE that the SDK assembles into the same message, usage with cache fields', async () => {
    fake.enqueue({ thinking: 'Think about the answer at length.', text: 'The answer is 42.', toolUses: [{ name: 'read_file', input: { path: 'a/b.ts', n: [1, 2] } }] });
    const stream = client.messages.stream({
      model: 'claude-sonnet-4-5',
      max_tokens: 512,
      tools,
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: 'hi' }],
    });
    const types: string[] = [];
    stream.on('streamEvent', (e) => types.push(e.type));
    const message = await stream.finalMessage();
    expect(message.content).toMatchObject([
      { type: 'thinking', thinking: 'Think about the answer at length.', signature: expect.any(String) },
      { type: 'text', text: 'The answer is 42.' },
      { type: 'tool_use', name: 'read_file', input: { path: 'a/b.ts', n: [1, 2] } },
    ]);
    expect(types[0]).toBe('message_start');
    expect(types.at(-1)).toBe('message_stop');
    // The SDK swallows pings: they are in the bytes.
    expect(fake.sentBytes(fake.messagesRequests()[0]!).toString()).toContain('event: ping\n');
    const counted = fake.countOf(fake.messagesRequests()[0]!)!;
    expect(message.usage).toMatchObject({ cache_creation_input_tokens: counted.cacheCreation, cache_read_input_tokens: 0 });
    expect(message.usage.input_tokens + (message.usage.cache_creation_input_tokens ?? 0)).toBe(counted.total);
  });

  it('reads the prefix it cached at a breakpoint on the next request', async () => {
    const system = [{ type: 'text' as const, text: 'A long, stable system prompt. '.repeat(80), cache_control: { type: 'ephemeral' as const } }];
    await client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 64, system, messages: [{ role: 'user', content: 'one' }] });
    const second = await client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 64, system, messages: [{ role: 'user', content: 'two' }] });
    const first = fake.countOf(fake.messagesRequests()[0]!)!;
    expect(first.cacheCreation).toBeGreaterThan(400);
    expect(second.usage.cache_read_input_tokens).toBe(first.cacheCreation);
    expect(second.usage.cache_creation_input_tokens).toBe(0);
  });

  it('ends a stream with an error event when told to, which the SDK raises', async () => {
    fake.enqueue({ text: 'partial', sseError: { type: 'overloaded_error', message: 'Overloaded' } });
    const stream = client.messages.stream({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
    await expect(stream.finalMessage()).rejects.toThrow(/Overloaded/);
    expect(fake.sentBytes(fake.messagesRequests()[0]!).toString()).not.toContain('message_stop');
  });

  it('refuses what Anthropic refuses: an unanswered tool_use, more than 4 breakpoints, a prompt over the window', async () => {
    await expect(
      client.messages.create({
        model: 'claude-sonnet-4-5',
        max_tokens: 64,
        tools,
        messages: [
          { role: 'user', content: 'go' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: {} }] },
          { role: 'user', content: 'never mind' },
        ],
      }),
    ).rejects.toMatchObject({ status: 400, message: expect.stringContaining('without `tool_result` blocks immediately after: toolu_1') });
    const cc = { type: 'ephemeral' as const };
    await expect(
      client.messages.create({
        model: 'claude-sonnet-4-5',
        max_tokens: 64,
        system: [1, 2, 3].map((n) => ({ type: 'text' as const, text: `s${n}`, cache_control: cc })),
        messages: [{ role: 'user', content: [1, 2].map((n) => ({ type: 'text' as const, text: `u${n}`, cache_control: cc })) }],
      }),
    ).rejects.toMatchObject({ status: 400, message: expect.stringContaining('A maximum of 4 blocks with cache_control may be provided. Found 5.') });
    fake.setOptions({ contextWindow: 100 });
    await expect(client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'x'.repeat(1000) }] })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('prompt is too long'),
    });
    fake.setOptions({ contextWindow: undefined });
    expect(fake.refusals()).toHaveLength(3);
  });

  it('counts tokens, lists models, summarizes for the summarizer model, and wants a key', async () => {
    const counted = await client.messages.countTokens({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'hello there' }] });
    expect(counted.input_tokens).toBeGreaterThan(0);
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toContain('claude-haiku-fake');
    const summary = await client.messages.create({
      model: 'claude-haiku-fake',
      max_tokens: 256,
      messages: [{ role: 'user', content: 'The task: fix ticket ORD-4411 in src/pay.ts.' }],
    });
    expect(JSON.stringify(summary.content)).toContain('ORD-4411');
    expect(fake.summarizerRequests()).toHaveLength(1);
    const keyless = await fetch(`${fake.url}/messages`, { method: 'POST', body: JSON.stringify({ model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'x' }] }) });
    expect(keyless.status).toBe(401);
    expect(await keyless.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
  });
});
