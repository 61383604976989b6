import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config/config.js';
import { createTokenCounter } from '../tokens/counter.js';
import { RECALL_TOOL_MAX_TOKENS } from '../recall/tool.js';
import { canForwardFirst } from './forward-first.js';

const config = parseConfig(
  JSON.stringify({
    upstreams: { a: { base_url: 'http://127.0.0.1:1/v1' } },
    models: [
      { match: 'small', upstream: 'a', context_window: 1200, max_output_tokens: 200, compaction: { strategy: 'window' }, recall: { enabled: false } },
      { match: 'est', upstream: 'a', context_window: 1200, max_output_tokens: 200, encoding: 'estimate', compaction: { strategy: 'window' }, recall: { enabled: false } },
      { match: 'recalling', upstream: 'a', context_window: 1200, max_output_tokens: 200, compaction: { strategy: 'window' } },
    ],
  }),
  'f',
  {},
);
const [small, est, recalling] = config.models;
const bytes = (b: unknown) => Buffer.byteLength(JSON.stringify(b));
const counter = createTokenCounter({ encoding: 'o200k_base' });

describe('canForwardFirst', () => {
  it('holds back a body whose bytes could exceed the prepare line, and never says yes when tokens exceed bytes', () => {
    const samples = ['hello world', '日本語のテキストです。'.repeat(20), '🙂🙃'.repeat(50), 'x '.repeat(300), '{"a":[1,2,3]}'.repeat(30)];
    for (const text of samples) {
      const body = {
        model: 'small',
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: text },
        ],
      };
      const tokens = counter.countMessages(body.messages).total;
      expect(tokens).toBeLessThanOrEqual(bytes(body));
      expect(canForwardFirst(body, bytes(body), small, {}, ['x-conversation-id'])).toBe(bytes(body) <= 0.8 * 1000);
    }
  });

  it('counts first for images, oversized conversation ids, and doubles the bound for tools and calibration', () => {
    const text = { model: 'small', messages: [{ role: 'user', content: 'hi' }] };
    expect(canForwardFirst(text, 300, small, {}, ['x-conversation-id'])).toBe(true);
    const image = { model: 'small', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }] }] };
    expect(canForwardFirst(image, 100, small, {}, ['x-conversation-id'])).toBe(false);
    expect(canForwardFirst(text, 300, small, { 'x-conversation-id': 'x'.repeat(600) }, ['x-conversation-id'])).toBe(false);
    expect(canForwardFirst({ ...text, tools: [] }, 450, small, {}, ['x-conversation-id'])).toBe(false);
    expect(canForwardFirst(text, 450, est, {}, ['x-conversation-id'])).toBe(false);
    expect(canForwardFirst(text, 450, small, {}, ['x-conversation-id'])).toBe(true);
    expect(canForwardFirst(text, 1e9, undefined, {}, ['x-conversation-id'])).toBe(true);
  });

  it('leaves room for recap_recall where it may be injected', () => {
    const text = { model: 'recalling', messages: [{ role: 'user', content: 'hi' }] };
    expect(canForwardFirst(text, 0.8 * (1000 - RECALL_TOOL_MAX_TOKENS), recalling, {}, ['x-conversation-id'])).toBe(true);
    expect(canForwardFirst(text, 0.8 * (1000 - RECALL_TOOL_MAX_TOKENS) + 1, recalling, {}, ['x-conversation-id'])).toBe(false);
  });
});
