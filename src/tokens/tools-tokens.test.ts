import { describe, expect, it } from 'vitest';
import type { ChatMessage, ChatRequest } from '../messages/types.js';
import { createTokenCounter } from './counter.js';
import type { EncodingName } from './encodings.js';

// Published prompt_tokens for requests with function definitions, used to measure how close the
// namespace rendering (tools-tokens.ts) comes to the API:
// - the fixtures of hmarr/openai-chat-tokens (tests/token-counts.test.ts), each measured by
//   calling gpt-3.5-turbo (cl100k_base);
// - the tool example of OpenAI's cookbook "How to count tokens with tiktoken", section 7: 105 on
//   gpt-4 (cl100k_base) and 101 on gpt-4o (o200k_base).

interface Fixture {
  messages: ChatMessage[];
  functions?: unknown[];
  tools?: unknown[];
  encoding: EncodingName;
  promptTokens: number;
}

const fn = (name: string, properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  name,
  ...extra,
  parameters: { type: 'object', properties, ...(extra.required ? { required: extra.required } : {}) },
});
const user = (content: string): ChatMessage => ({ role: 'user', content });
const system = (content: string): ChatMessage => ({ role: 'system', content });

const HMARR: Array<Omit<Fixture, 'encoding'>> = [
  { messages: [user('hello')], promptTokens: 8 },
  { messages: [user('hello world')], promptTokens: 9 },
  { messages: [system('hello')], promptTokens: 8 },
  { messages: [system('hello:')], promptTokens: 9 },
  { messages: [system("# Important: you're the best robot"), user('hello robot'), { role: 'assistant', content: 'hello world' }], promptTokens: 27 },
  { messages: [user('hello')], functions: [fn('foo', {})], promptTokens: 31 },
  { messages: [user('hello')], functions: [fn('foo', {}, { description: 'Do a foo' })], promptTokens: 36 },
  { messages: [user('hello')], functions: [fn('bing_bong', { foo: { type: 'string' } }, { description: 'Do a bing bong' })], promptTokens: 49 },
  {
    messages: [user('hello')],
    functions: [fn('bing_bong', { foo: { type: 'string' }, bar: { type: 'number', description: 'A number' } }, { description: 'Do a bing bong' })],
    promptTokens: 57,
  },
  {
    messages: [user('hello')],
    functions: [
      fn('bing_bong', { foo: { type: 'object', properties: { bar: { type: 'string', enum: ['a', 'b', 'c'] }, baz: { type: 'boolean' } } } }, { description: 'Do a bing bong' }),
    ],
    promptTokens: 68,
  },
  { messages: [user('hello world'), { role: 'function', name: 'do_stuff', content: '{}' }], promptTokens: 15 },
  { messages: [user('hello world'), { role: 'function', name: 'do_stuff', content: '{"foo": "bar", "baz": 1.5}' }], promptTokens: 28 },
  { messages: [{ role: 'function', name: 'dance_the_tango', content: '{"a": { "b" : { "c": false}}}' }], promptTokens: 24 },
  { messages: [{ role: 'assistant', content: '', function_call: { name: 'do_stuff', arguments: '{"foo": "bar", "baz": 1.5}' } }], promptTokens: 26 },
  { messages: [{ role: 'assistant', content: '', function_call: { name: 'do_stuff', arguments: '{"foo":"bar", "baz":\n\n 1.5}' } }], promptTokens: 25 },
  { messages: [system('Hello'), user('Hi there')], functions: [fn('do_stuff', {})], promptTokens: 35 },
  { messages: [system('Hello:'), user('Hi there')], functions: [fn('do_stuff', {})], promptTokens: 35 },
  { messages: [system('Hello:'), system('Hello'), user('Hi there')], functions: [fn('do_stuff', {})], promptTokens: 40 },
  {
    messages: [user('hello')],
    functions: [
      fn(
        'get_recipe',
        {
          ingredients: {
            type: 'array',
            items: {
              type: 'object',
              required: ['name', 'unit', 'amount'],
              properties: {
                name: { type: 'string' },
                unit: { enum: ['grams', 'ml', 'cups', 'pieces', 'teaspoons'], type: 'string' },
                amount: { type: 'number' },
              },
            },
          },
          instructions: { type: 'array', items: { type: 'string' }, description: 'Steps to prepare the recipe (no numbering)' },
          time_to_cook: { type: 'number', description: 'Total time to prepare the recipe in minutes' },
        },
        { required: ['ingredients', 'instructions', 'time_to_cook'] },
      ),
    ],
    promptTokens: 106,
  },
];

const WEATHER_TOOL = {
  type: 'function',
  function: fn(
    'get_current_weather',
    {
      location: { type: 'string', description: 'The city and state, e.g. San Francisco, CA' },
      unit: { type: 'string', description: 'The unit of temperature to return', enum: ['celsius', 'fahrenheit'] },
    },
    { description: 'Get the current weather in a given location', required: ['location'] },
  ),
};
const WEATHER_MESSAGES = [system('You are a helpful assistant that can answer to questions about the weather.'), user("What's the weather like in San Francisco?")];

const FIXTURES: Fixture[] = [
  ...HMARR.map((f) => ({ ...f, encoding: 'cl100k_base' as const })),
  { messages: WEATHER_MESSAGES, tools: [WEATHER_TOOL], encoding: 'cl100k_base', promptTokens: 105 },
  { messages: WEATHER_MESSAGES, tools: [WEATHER_TOOL], encoding: 'o200k_base', promptTokens: 101 },
];

function promptTokens(f: Fixture): number {
  const counter = createTokenCounter({ encoding: f.encoding });
  const req: ChatRequest = { model: 'm', messages: f.messages, functions: f.functions, tools: f.tools };
  return counter.countMessages(f.messages).total + counter.countTools(req);
}

describe('prompt tokens against published API counts', () => {
  it.each(FIXTURES.map((f, i) => [i, f] as const))('fixture %i matches the API exactly', (_i, fixture) => {
    expect(promptTokens(fixture)).toBe(fixture.promptTokens);
  });
});

describe('countTools', () => {
  const counter = createTokenCounter({ encoding: 'o200k_base' });

  it('is zero without tools, functions or a json_schema response format', () => {
    expect(counter.countTools({ model: 'm', messages: [user('hi')] })).toBe(0);
    expect(counter.countTools({ model: 'm', messages: [], tools: [], response_format: { type: 'json_object' } })).toBe(0);
  });

  it('counts a json_schema response format as its visible schema plus 9', () => {
    const schema = { type: 'object', properties: { required: { type: 'boolean' }, name: { type: 'string' } }, required: ['name'], additionalProperties: false };
    const tokens = counter.countTools({ model: 'm', messages: [], response_format: { type: 'json_schema', json_schema: { name: 'x', strict: true, schema } } });
    const visible = JSON.stringify({ type: 'object', properties: { required: { type: 'boolean' }, name: { type: 'string' } } });
    expect(tokens).toBe(counter.countText(visible) + 9);
  });

  it('counts tools that are not functions by their JSON', () => {
    const tool = { type: 'custom', custom: { name: 'sql', description: 'Run a query' } };
    expect(counter.countTools({ model: 'm', messages: [], tools: [tool] })).toBe(counter.countText(JSON.stringify(tool)));
  });

  it('counts schemas nested 10,000 levels deep without recursing that deep, in bounded text', () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 10_000; i++) schema = { type: 'object', properties: { a: schema }, required: ['a'], const_: i % 2 ? undefined : { x: [i] } };
    const deepConst = JSON.parse(`${'['.repeat(10_000)}${']'.repeat(10_000)}`) as unknown;
    const tools = [
      { type: 'function', function: { name: 'f', parameters: schema } },
      { type: 'function', function: { name: 'g', parameters: { type: 'object', properties: { c: { const: deepConst } } } } },
      { type: 'custom', custom: { deep: deepConst } },
    ];
    const tokens = counter.countTools({ model: 'm', messages: [], tools, response_format: { type: 'json_schema', json_schema: { name: 'x', schema } } });
    expect(tokens).toBeGreaterThan(10_000);
    // Shown as its JSON past the nesting bound: tokens grow with the schema, not with its depth squared.
    expect(tokens).toBeLessThan(1_000_000);
  });
});

describe('system newline padding', () => {
  const counter = createTokenCounter({ encoding: 'cl100k_base' });
  const tools = [{ type: 'function', function: { name: 'do_stuff', parameters: { type: 'object', properties: {} } } }];
  const toolsWith = (content: string) => counter.countTools({ model: 'm', messages: [system(content), user('Hi')], tools });

  it('matches counting the whole system text twice, for long texts too', () => {
    for (const content of ['Hello', 'Hello:', `${'A long system prompt. '.repeat(200)}End:`, `${'word '.repeat(500)}tail`]) {
      const padding = counter.countText(`${content}\n`) - counter.countText(content);
      expect(toolsWith(content) - toolsWith('Hello')).toBe(padding - (counter.countText('Hello\n') - counter.countText('Hello')));
    }
  });

  it('counts the padding of one system message object per tokenizer', () => {
    // ":\n" is one token for cl100k_base, two for the byte estimate: the same message object goes through both.
    const estimate = createTokenCounter({ encoding: 'estimate' });
    const messages = [system('Hello:'), user('Hi')];
    const padding = (c: typeof counter) => c.countTools({ model: 'm', messages, tools }) - c.countTools({ model: 'm', messages: [system('Hello'), user('Hi')], tools });
    expect(padding(counter)).toBe(-1);
    expect(padding(estimate)).toBe(0);
    expect(padding(counter)).toBe(-1);
  });

  it('assumes a token for the newline after one huge word', () => {
    expect(toolsWith('x'.repeat(10_000)) - toolsWith('Hello')).toBe(1 - (counter.countText('Hello\n') - counter.countText('Hello')));
  });
});
