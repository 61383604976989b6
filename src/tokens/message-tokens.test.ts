import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../messages/types.js';
import { messageCost } from './message-tokens.js';

describe('messageCost', () => {
  it('lists role, name and content texts with 3 framing tokens and 1 for the name', () => {
    expect(messageCost({ role: 'user', name: 'bob', content: 'hi' })).toEqual({ texts: ['user', 'bob', 'hi'], fixedTokens: 4 });
  });

  it('saves 2 tokens on a legacy function result, whose name stands in for the role', () => {
    expect(messageCost({ role: 'function', name: 'do_stuff', content: '{}' })).toEqual({ texts: ['function', 'do_stuff', '{}'], fixedTokens: 2 });
  });

  it('counts a legacy function_call like one tool call', () => {
    const m: ChatMessage = { role: 'assistant', content: '', function_call: { name: 'f', arguments: '{"a":1}' } };
    expect(messageCost(m)).toEqual({ texts: ['assistant', 'f', '{"a":1}'], fixedTokens: 6 });
  });

  it('reads text from refusal and other text-bearing parts, and skips empty text parts', () => {
    const m: ChatMessage = {
      role: 'assistant',
      content: [
        { type: 'refusal', refusal: 'I cannot help with that.' },
        { type: 'input_text', text: 'typed elsewhere' },
        { type: 'text', text: '' },
      ],
    };
    expect(messageCost(m)).toEqual({ texts: ['assistant', 'I cannot help with that.', 'typed elsewhere'], fixedTokens: 3 });
  });

  it('gives unknown non-text parts a fixed estimate instead of counting their payload', () => {
    const m: ChatMessage = { role: 'user', content: [{ type: 'video_url', video_url: { url: 'data:video/mp4;base64,' + 'A'.repeat(10_000) } }] };
    expect(messageCost(m)).toEqual({ texts: ['user'], fixedTokens: 3 + 256 });
  });

  it('tolerates malformed fields from the wire', () => {
    const m = { role: 'assistant', name: 42, content: [null, 'x', { type: 'text', text: 7 }], tool_calls: [null, { function: null }] } as unknown as ChatMessage;
    expect(messageCost(m)).toEqual({ texts: ['assistant'], fixedTokens: 3 + 3 + 3 });
  });
});
