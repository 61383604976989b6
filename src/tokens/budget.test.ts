import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../messages/types.js';
import { modelSchema, type ModelConfig } from '../config/schema.js';
import { resolveBudget } from './budget.js';

const model = (extra: Partial<ModelConfig> = {}): ModelConfig =>
  modelSchema.parse({ match: 'gpt-4o', upstream: 'openai', context_window: 128_000, max_output_tokens: 16_000, ...extra });
const request = (extra: Partial<ChatRequest> = {}): ChatRequest => ({ model: 'gpt-4o', messages: [], ...extra });

describe('resolveBudget', () => {
  it("reserves the model's max_output_tokens when the request sets no limit", () => {
    expect(resolveBudget(model(), request(), 500)).toEqual({ budget: 111_500, prompt: 112_000, outputReservation: 16_000, source: 'max_output_tokens' });
  });

  it('prefers max_completion_tokens over max_tokens', () => {
    expect(resolveBudget(model(), request({ max_completion_tokens: 4_000, max_tokens: 8_000 }), 0)).toEqual({
      budget: 124_000,
      prompt: 124_000,
      outputReservation: 4_000,
      source: 'max_completion_tokens',
    });
  });

  it('uses max_tokens when max_completion_tokens is absent or null', () => {
    expect(resolveBudget(model(), request({ max_tokens: 8_000 }), 0).source).toBe('max_tokens');
    expect(resolveBudget(model(), request({ max_completion_tokens: null, max_tokens: 8_000 }), 100)).toEqual({
      budget: 119_900,
      prompt: 120_000,
      outputReservation: 8_000,
      source: 'max_tokens',
    });
  });

  it('ignores limits that are not positive numbers', () => {
    const odd = { max_completion_tokens: '4000', max_tokens: -1 } as unknown as Partial<ChatRequest>;
    expect(resolveBudget(model(), request(odd), 0).source).toBe('max_output_tokens');
    expect(resolveBudget(model(), request({ max_tokens: Number.NaN }), 0).source).toBe('max_output_tokens');
  });

  it('lets an explicit model budget override everything', () => {
    expect(resolveBudget(model({ budget: 30_000 }), request({ max_tokens: 8_000 }), 2_000)).toEqual({
      budget: 30_000,
      prompt: 32_000,
      outputReservation: 8_000,
      source: 'model_budget',
    });
  });

  it('never goes negative', () => {
    expect(resolveBudget(model({ context_window: 8_000 }), request({ max_tokens: 7_000 }), 5_000).budget).toBe(0);
    expect(resolveBudget(model({ context_window: 8_000 }), request({ max_tokens: 9_000 }), 5_000)).toMatchObject({ budget: 0, prompt: 0 });
  });

  it('gives the whole prompt the window minus the reply, the tool definitions included, whatever they take', () => {
    const b = resolveBudget(model({ context_window: 8_000 }), request({ max_tokens: 1_000 }), 5_000);
    expect(b).toMatchObject({ budget: 2_000, prompt: 7_000 });
    expect(resolveBudget(model({ context_window: 8_000 }), request({ max_tokens: 1_000 }), 9_000)).toMatchObject({ budget: 0, prompt: 7_000 });
  });
});
