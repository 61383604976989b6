// The fake's /v1/responses driven by the official OpenAI SDK: response objects as OpenAI sends them
// (typed streams: fake-responses-stream.test.ts).
import OpenAI from 'openai';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from './fake-upstream.js';

let fake: FakeUpstream;
let client: OpenAI;

const weather = {
  type: 'function' as const,
  name: 'get_weather',
  parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } } },
  strict: false,
};

beforeEach(async () => {
  fake ??= await startFakeUpstream();
  client ??= new OpenAI({ baseURL: fake.url, apiKey: 'test', maxRetries: 0 });
  fake.reset();
  fake.setOptions({ chunkDelayMs: 0, promptTokens: undefined });
});
afterAll(() => fake.close());

describe('JSON responses', () => {
  it('answers with a deterministic echo of the last user input, read from input items', async () => {
    const response = await client.responses.create({
      model: 'gpt-4.1-mini',
      instructions: 'Be brief.',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'Hello there, fake upstream' }] }],
    });
    expect(response).toMatchObject({ object: 'response', status: 'completed', model: 'gpt-4.1-mini', instructions: 'Be brief.', error: null });
    expect(response.id).toMatch(/^resp_/);
    expect(response.output_text).toMatch(/^Echo: Hello there, fake upstream\. /);
    expect(response.output).toHaveLength(1);
    expect(response.output[0]).toMatchObject({ type: 'message', role: 'assistant', status: 'completed' });
    expect(fake.responsesRequests()).toHaveLength(1);
    expect(fake.chatRequests()).toHaveLength(0);
    expect(fake.responsesRequests()[0]!.json.input[0].content[0].text).toBe('Hello there, fake upstream');
  });

  it('reports usage: input_tokens estimated from instructions and input, or exactly as the test says', async () => {
    const request = { model: 'm', instructions: 'Answer in French.', input: 'x'.repeat(400) };
    const estimated = await client.responses.create(request);
    expect(estimated.usage?.input_tokens).toBe(Math.ceil(JSON.stringify([request.instructions, request.input]).length / 4));
    expect(estimated.usage).toMatchObject({ input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } });
    expect(estimated.usage?.total_tokens).toBe(estimated.usage!.input_tokens + estimated.usage!.output_tokens);

    fake.setOptions({ promptTokens: (req) => (req.json.input as string).length * 2 });
    expect((await client.responses.create(request)).usage?.input_tokens).toBe(800);
    fake.enqueue({ content: 'no usage', usage: false });
    expect((await client.responses.create(request)).usage ?? null).toBeNull();
  });

  it('turns a scripted reply into reasoning, message and parallel function_call items, in that order', async () => {
    fake.enqueue({
      reasoning: { summary: ['Two cities, so two calls.'] },
      content: 'Checking both.',
      toolCalls: [
        { name: 'get_weather', arguments: '{"city":"Oslo"}' },
        { name: 'get_weather', arguments: '{"city":"Rome"}' },
      ],
    });
    const response = await client.responses.create({ model: 'm', input: 'Weather in Oslo and Rome?', tools: [weather] });
    expect(response.output.map((item) => item.type)).toEqual(['reasoning', 'message', 'function_call', 'function_call']);
    const [reasoning, , first, second] = response.output;
    expect(reasoning).toEqual({ id: expect.stringMatching(/^rs_/), type: 'reasoning', summary: [{ type: 'summary_text', text: 'Two cities, so two calls.' }] });
    expect(first).toMatchObject({ type: 'function_call', name: 'get_weather', arguments: '{"city":"Oslo"}', status: 'completed' });
    expect(second).toMatchObject({ type: 'function_call', name: 'get_weather', arguments: '{"city":"Rome"}' });
    const calls = [first, second] as OpenAI.Responses.ResponseFunctionToolCall[];
    expect(new Set(calls.map((c) => c.call_id)).size).toBe(2);
    expect(calls.every((c) => c.id?.startsWith('fc_') && c.call_id.startsWith('call_'))).toBe(true);
    expect(response.output_text).toBe('Checking both.');
    expect(response.usage?.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);
  });

  it('sends encrypted_content when include asks for it, or when the script says so', async () => {
    fake.enqueue({ reasoning: { summary: [] }, content: 'a' });
    const asked = await client.responses.create({ model: 'm', input: 'x', include: ['reasoning.encrypted_content'], store: false });
    const item = asked.output[0] as OpenAI.Responses.ResponseReasoningItem;
    expect(item.encrypted_content).toMatch(/^gAAAAA[A-Za-z0-9+/=]+$/);
    expect(JSON.parse(fake.sentBytes(fake.responsesRequests()[0]!).toString()).store).toBe(false);

    fake.enqueue({ reasoning: {}, content: 'b' });
    expect((await client.responses.create({ model: 'm', input: 'x' })).output[0]).not.toHaveProperty('encrypted_content');
    fake.enqueue({ reasoning: { encrypted: true }, content: 'c' });
    expect((await client.responses.create({ model: 'm', input: 'x' })).output[0]).toHaveProperty('encrypted_content');
  });

  it('calls the first tool by default when the user asks for a tool, with arguments fitting its schema', async () => {
    const response = await client.responses.create({ model: 'm', input: 'Please use the tool for Oslo', tools: [weather] });
    const call = response.output[0] as OpenAI.Responses.ResponseFunctionToolCall;
    expect(call).toMatchObject({ type: 'function_call', name: 'get_weather' });
    expect(JSON.parse(call.arguments)).toEqual({ city: 'example', days: 1 });
  });

  it('answers a recall probe from the instructions and input items it was sent', async () => {
    const response = await client.responses.create({
      model: 'm',
      instructions: 'You help with billing.',
      input: [
        { role: 'developer', content: 'Summary of the earlier part: the user opened ticket SUP-4411.' },
        { type: 'function_call', call_id: 'c1', name: 'lookup', arguments: '{"path":"/etc/billing/rates.yaml"}' },
        { type: 'function_call_output', call_id: 'c1', output: 'rates loaded' },
        { role: 'user', content: 'Earlier in this conversation an identifier beginning with "SUP-44" came up. What was it exactly?' },
      ],
    });
    expect(response.output_text).toContain('SUP-4411');
    const path = await client.responses.create({
      model: 'm',
      input: [
        { type: 'function_call', call_id: 'c1', name: 'lookup', arguments: '{"path":"/etc/billing/rates.yaml"}' },
        { type: 'function_call_output', call_id: 'c1', output: 'rates loaded' },
        { role: 'user', content: 'Earlier in this conversation an identifier beginning with "/etc/bil" came up. What was it exactly?' },
      ],
    });
    expect(path.output_text).toContain('/etc/billing/rates.yaml');
  });
});

describe('scripts and recorded requests', () => {
  it('gives a reply queued for /v1/responses to that route only, and lets setDefault read input', async () => {
    fake.enqueue({ content: 'for responses' }, { path: '/v1/responses' });
    fake.setDefault((req) => (req.json?.input !== undefined ? undefined : { content: `chat saw ${req.json?.messages?.length}` }));
    const chat = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    expect(chat.choices[0]?.message.content).toBe('chat saw 1');
    expect((await client.responses.create({ model: 'm', input: 'hi' })).output_text).toBe('for responses');
    expect((await client.responses.create({ model: 'm', input: 'again' })).output_text).toMatch(/^Echo: again\./);
    expect(fake.responsesRequests().map((r) => r.json.input)).toEqual(['hi', 'again']);
    expect(fake.chatRequests()).toHaveLength(1);
  });

  it('takes a reply queued for a model only for a request naming it', async () => {
    fake.enqueue({ content: 'for the big model' }, { model: 'gpt-big' });
    expect((await client.responses.create({ model: 'gpt-small', input: 'x' })).output_text).toMatch(/^Echo/);
    expect((await client.responses.create({ model: 'gpt-big', input: 'x' })).output_text).toBe('for the big model');
  });
});
