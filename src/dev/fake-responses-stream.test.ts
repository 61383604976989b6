// The fake's typed SSE stream for /v1/responses, as the official SDK iterates and assembles it.
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
  fake.setOptions({ chunkDelayMs: 0 });
});
afterAll(() => fake.close());

/** The raw frames the fake sent for a request: [event line's type, parsed data]. */
function framesOf(sent: Buffer): [string, any][] {
  return sent
    .toString()
    .split('\n\n')
    .filter(Boolean)
    .map((frame) => {
      const [event, data] = frame.split('\n');
      return [event!.replace(/^event: /, ''), JSON.parse(data!.replace(/^data: /, ''))];
    });
}

describe('typed SSE streams', () => {
  it('streams the events in OpenAI order, each named by its event line, numbered from 0', async () => {
    fake.enqueue({ stream: { chunks: ['Once', ' upon', ' a time.'] }, toolCalls: [{ name: 'get_weather', arguments: '{"city":"Oslo","days":3}' }] });
    const stream = await client.responses.create({ model: 'm', input: 'Tell a story', tools: [weather], stream: true });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);

    const types = events.map((e) => e.type);
    expect(types.slice(0, 6)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
    ]);
    expect(types.filter((t) => t === 'response.output_text.delta')).toHaveLength(3);
    expect(types.slice(7, 11)).toEqual(['response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.output_item.added']);
    expect(types.filter((t) => t === 'response.function_call_arguments.delta').length).toBeGreaterThan(1);
    expect(types.slice(-3)).toEqual(['response.function_call_arguments.done', 'response.output_item.done', 'response.completed']);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));

    const deltas = events.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : []));
    expect(deltas).toEqual(['Once', ' upon', ' a time.']);
    const args = events.flatMap((e) => (e.type === 'response.function_call_arguments.delta' ? [e.delta] : [])).join('');
    expect(args).toBe('{"city":"Oslo","days":3}');
    const completed = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
    expect(completed.response.output.map((o) => o.type)).toEqual(['message', 'function_call']);
    expect(completed.response.usage?.input_tokens).toBeGreaterThan(0);
    expect(events[0]).toMatchObject({ type: 'response.created', response: { status: 'in_progress', output: [], usage: null } });

    const frames = framesOf(fake.sentBytes(fake.responsesRequests()[0]!));
    expect(frames).toHaveLength(events.length);
    expect(frames.every(([event, data]) => event === data.type)).toBe(true);
  });

  it('is assembled by the SDK stream helper: output_text, function call arguments, reasoning summary, usage', async () => {
    fake.enqueue({
      reasoning: { summary: ['The user wants the weather for Oslo, so call the tool with the city.'], encrypted: true },
      content: 'Looking it up now for you.',
      toolCalls: [{ name: 'get_weather', arguments: '{"city":"Oslo","days":2}' }],
    });
    const snapshots: string[] = [];
    const stream = client.responses.stream({ model: 'm', input: 'Weather in Oslo?', tools: [weather] });
    stream.on('response.output_text.delta', (e) => snapshots.push(e.snapshot));
    const final = await stream.finalResponse();

    expect(final.output_text).toBe('Looking it up now for you.');
    expect(snapshots.at(-1)).toBe('Looking it up now for you.');
    expect(snapshots.length).toBeGreaterThan(1);
    const [reasoning, , call] = final.output;
    expect(reasoning).toMatchObject({ type: 'reasoning', summary: [{ type: 'summary_text', text: 'The user wants the weather for Oslo, so call the tool with the city.' }] });
    expect((reasoning as OpenAI.Responses.ResponseReasoningItem).encrypted_content).toMatch(/^gAAAAA/);
    expect(call).toMatchObject({ type: 'function_call', name: 'get_weather', arguments: '{"city":"Oslo","days":2}' });
    expect(final.usage?.output_tokens).toBeGreaterThan(final.usage!.output_tokens_details.reasoning_tokens);
    const sent = framesOf(fake.sentBytes(fake.responsesRequests()[0]!)).map(([event]) => event);
    expect(sent.filter((e) => e === 'response.reasoning_summary_text.delta').length).toBeGreaterThan(1);
  });

  it('streams the default reply too, and ends with response.incomplete when the script stops at the length limit', async () => {
    const stream = await client.responses.create({ model: 'm', input: 'ping', stream: true });
    let text = '';
    for await (const event of stream) if (event.type === 'response.output_text.delta') text += event.delta;
    expect(text).toMatch(/^Echo: ping\. This is a deterministic reply/);

    fake.enqueue({ content: 'cut short', finishReason: 'length' });
    const final = await client.responses.stream({ model: 'm', input: 'x', max_output_tokens: 16 }).finalResponse();
    expect(final).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, max_output_tokens: 16 });
    expect(framesOf(fake.sentBytes(fake.responsesRequests()[1]!)).at(-1)![0]).toBe('response.incomplete');
  });
});
