import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../messages/types.js';
import { modelSchema } from '../config/schema.js';
import { countRequest } from './count-request.js';
import { createTokenCounter } from './counter.js';

const body: ChatRequest = {
  model: 'gpt-4o',
  max_tokens: 1_000,
  messages: [
    { role: 'system', content: 'You are a helpful assistant that can answer to questions about the weather.' },
    { role: 'user', content: "What's the weather like in San Francisco?" },
  ],
  tools: [
    {
      type: 'function',
      function: {
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
      },
    },
  ],
};

describe('countRequest', () => {
  it('reports prompt tokens (messages + tools), the budget and each message', () => {
    const model = modelSchema.parse({ match: 'gpt-4o*', upstream: 'openai', context_window: 128_000, max_output_tokens: 16_000 });
    const result = countRequest(body, model);
    // The OpenAI cookbook's API count for this request on gpt-4o.
    expect(result.prompt_tokens).toBe(101);
    const counter = createTokenCounter({ encoding: 'o200k_base' });
    // Measured like prompt_tokens, tool definitions included: the window minus the reply (the request's max_tokens).
    expect(result.tools_tokens).toBe(counter.countTools(body));
    expect(result.budget).toBe(128_000 - 1_000);
    expect(result.messages).toEqual([
      { index: 0, role: 'system', tokens: counter.countMessage(body.messages[0]!) },
      { index: 1, role: 'user', tokens: counter.countMessage(body.messages[1]!) },
    ]);
  });

  it('reports the priming and tools tokens, so that the parts add up to the total', () => {
    const result = countRequest(body, undefined);
    expect(result.priming_tokens).toBe(3);
    expect(result.tools_tokens).toBe(createTokenCounter({ encoding: 'o200k_base' }).countTools(body));
    expect(result.tools_tokens).toBeGreaterThan(0);
    const rows = result.messages.reduce((a, m) => a + m.tokens, 0);
    expect(rows + result.priming_tokens + result.tools_tokens).toBe(result.prompt_tokens);
  });

  it("counts with the model's encoding", () => {
    const model = modelSchema.parse({ match: 'gpt-4', upstream: 'openai', context_window: 8_192, max_output_tokens: 1_000, encoding: 'cl100k_base' });
    expect(countRequest(body, model).prompt_tokens).toBe(105);
  });

  it('uses o200k_base and a null budget for a model without config', () => {
    const result = countRequest(body, undefined);
    expect(result.prompt_tokens).toBe(101);
    expect(result.budget).toBeNull();
  });

  it('has the contract shape and survives a body without messages', () => {
    const result = countRequest({ model: 'x' } as ChatRequest, undefined);
    expect(Object.keys(result)).toEqual(['prompt_tokens', 'budget', 'priming_tokens', 'tools_tokens', 'messages']);
    expect(result).toEqual({ prompt_tokens: 3, budget: null, priming_tokens: 3, tools_tokens: 0, messages: [] });
  });
});
