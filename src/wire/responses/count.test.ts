import { describe, expect, it } from 'vitest';
import { chatToolsTokens, itemTokens, responsesPromptTokens } from '../../../test/helpers/responses-tokens.js';
import { createModelResolver, parseConfig } from '../../config/config.js';
import { createMetrics } from '../../observability/metrics.js';
import { createTokenService } from '../../pipeline/token-service.js';
import { countResponsesRequest } from './count.js';
import type { ResponseItem, ResponsesRequest } from './types.js';

// The Responses route's counting against an oracle of its own (test/helpers/responses-tokens.ts:
// js-tiktoken and the cookbook's framing, written apart from recap's counter), and against the
// figure OpenAI's cookbook publishes for its tool example, sent in the Responses shape.

const config = parseConfig(
  `
upstreams:
  main: { base_url: "http://127.0.0.1:1/v1" }
models:
  - { match: "gpt-4o*", upstream: main, context_window: 128000, max_output_tokens: 4096 }
  - { match: "gpt-4", upstream: main, context_window: 8192, max_output_tokens: 1000, encoding: cl100k_base }
  - { match: "guess-*", upstream: main, context_window: 8192, max_output_tokens: 1000, encoding: estimate }
`,
  'test.yaml',
  { RECAP_SECRET: 's'.repeat(32) },
);
const resolve = createModelResolver(config.models);
const tokens = createTokenService(config, createMetrics());
const count = (body: ResponsesRequest, model = 'gpt-4o') => countResponsesRequest(tokens, body, resolve(model));

// The cookbook's "How to count tokens with tiktoken", section 7: 101 prompt tokens on gpt-4o and
// 105 on gpt-4, for a system message, a user message and one function.
const WEATHER_TOOL = {
  type: 'function',
  name: 'get_current_weather',
  description: 'Get the current weather in a given location',
  parameters: {
    type: 'object',
    properties: {
      location: { type: 'string', description: 'The city and state, e.g. San Francisco, CA' },
      unit: { type: 'string', description: 'The unit of temperature to return', enum: ['celsius', 'fahrenheit'] },
    },
    required: ['location'],
  },
};
const COOKBOOK: ResponsesRequest = {
  model: 'gpt-4o',
  instructions: 'You are a helpful assistant that can answer to questions about the weather.',
  input: [{ role: 'user', content: "What's the weather like in San Francisco?" }],
  tools: [WEATHER_TOOL],
};

/** One of each item shape a stateless client sends back. */
const ITEMS: ResponseItem[] = [
  { role: 'developer', content: 'Answer in English.' },
  { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Read the deploy log of release R-2024.11.' }] },
  {
    type: 'message',
    role: 'user',
    content: [
      { type: 'input_text', text: 'And this screenshot:' },
      { type: 'input_image', image_url: 'https://example.com/a.png', detail: 'low' },
      { type: 'input_image', image_url: 'https://example.com/b.png' },
      { type: 'input_file', file_id: 'file_1' },
    ],
  },
  { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Two parts at once.' }], encrypted_content: `gAAAAAB${'x9'.repeat(40)}` },
  { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'read_log', arguments: '{"part":3}', status: 'completed' },
  { type: 'function_call_output', call_id: 'call_1', output: '2024-11-03T10:00:00Z pod web-3-0 restarted, exit code 137' },
  { type: 'custom_tool_call', id: 'ctc_1', call_id: 'call_2', name: 'apply_patch', input: '*** Begin Patch\n*** Update File: src/app.ts\n*** End Patch' },
  { type: 'custom_tool_call_output', call_id: 'call_2', output: [{ type: 'input_text', text: 'Done: 1 file changed.' }] },
  { type: 'message', role: 'assistant', id: 'msg_1', status: 'completed', content: [{ type: 'output_text', text: 'Root cause: OOM kills.', annotations: [] }] },
  { type: 'message', role: 'assistant', content: [{ type: 'refusal', refusal: 'I cannot share that key.' }] },
];

describe('countResponsesRequest', () => {
  it("reproduces the cookbook's 101 tokens on gpt-4o and 105 on gpt-4 for its tool example in the Responses shape", async () => {
    expect((await count(COOKBOOK)).tokensIn).toBe(101);
    expect((await count({ ...COOKBOOK, model: 'gpt-4' }, 'gpt-4')).tokensIn).toBe(105);
  });

  it('counts every item shape as the oracle does, and the parts add up to the whole', async () => {
    const body: ResponsesRequest = { model: 'gpt-4o', instructions: 'You are an ops agent.', input: ITEMS, tools: [WEATHER_TOOL] };
    const counted = await count(body);
    expect(counted.perItem).toEqual(ITEMS.map((item) => itemTokens(item)));
    expect(counted.fixedTokens).toBe(3 + itemTokens({ role: 'system', content: 'You are an ops agent.' }));
    expect(counted.toolsTokens).toBe(chatToolsTokens('You are an ops agent.', [WEATHER_TOOL]));
    expect(counted.tokensIn).toBe(responsesPromptTokens(body) + counted.toolsTokens);
    for (const item of ITEMS) expect(counted.countItem(item)).toBe(itemTokens(item));
  });

  it('counts in the model’s encoding', async () => {
    const body: ResponsesRequest = { model: 'gpt-4', instructions: 'Be brief.', input: ITEMS };
    const counted = await count(body, 'gpt-4');
    expect(counted.perItem).toEqual(ITEMS.map((item) => itemTokens(item, 'cl100k_base')));
    expect(counted.tokensIn).toBe(responsesPromptTokens(body, 'cl100k_base'));
  });

  it('counts what went upstream: a view, or the client’s own items', async () => {
    const body: ResponsesRequest = { model: 'gpt-4o', instructions: 'Be brief.', input: ITEMS, tools: [WEATHER_TOOL] };
    const counted = await count(body);
    const tools = chatToolsTokens('Be brief.', [WEATHER_TOOL]);
    expect(counted.rawOut(null)).toBe(responsesPromptTokens(body) + tools);
    const view = [ITEMS[0]!, { type: 'message', role: 'system', content: '[recap:summary v1] earlier work' }, ...ITEMS.slice(-2)];
    expect(counted.rawOut(view)).toBe(responsesPromptTokens({ ...body, input: view }) + tools);
  });

  it('takes a string input as one user message, and an empty `instructions` as none', async () => {
    const counted = await count({ model: 'gpt-4o', instructions: '', input: 'What is the weather in Paris?' });
    expect(counted.perItem).toEqual([itemTokens({ role: 'user', content: 'What is the weather in Paris?' })]);
    expect(counted.fixedTokens).toBe(3);
    expect((await count({ model: 'gpt-4o' })).tokensIn).toBe(3);
  });

  it('counts only tools the chat route counts as functions by their rendering, and other tools by their JSON, as the chat route does', async () => {
    const others = [{ type: 'web_search_preview' }, { type: 'custom', name: 'apply_patch', description: 'Applies a patch.' }];
    const counted = await count({ model: 'gpt-4o', input: [], tools: [WEATHER_TOOL, ...others] });
    expect(counted.toolsTokens).toBe(chatToolsTokens(undefined, [WEATHER_TOOL, ...others]));
    expect(counted.toolsTokens).toBeGreaterThan(chatToolsTokens(undefined, [WEATHER_TOOL]));
  });

  it('scales the counts of a model with an unknown tokenizer by its calibration', async () => {
    const model = resolve('guess-1')!;
    const body: ResponsesRequest = { model: 'guess-1', input: ITEMS };
    const before = await countResponsesRequest(tokens.forTenant('t'), body, model);
    // Each observation moves the tenant's factor a bounded step (tokens/calibration.ts).
    for (let i = 0; i < 80; i++) tokens.observe(model, before.rawOut(null), before.rawOut(null) * 2, 't');
    const after = await countResponsesRequest(tokens.forTenant('t'), body, model);
    expect(after.perItem).toEqual(before.perItem.map((t) => Math.ceil(t * 2)));
    expect(after.tokensIn).toBeGreaterThan(1.9 * before.tokensIn);
  });
});
