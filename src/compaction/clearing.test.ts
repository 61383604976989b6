import { describe, expect, it } from 'vitest';
import { clearedStubText } from './clearing.js';

describe('clearedStubText', () => {
  it('is the same bytes as before recall existed when recall is not offered', () => {
    expect(clearedStubText('read_file', 'call_1', 'x'.repeat(3600))).toBe(
      '[recap: tool result cleared to save context — tool read_file, call call_1, 900 tokens. Call the tool again if you need it.]',
    );
  });

  it('adds one sentence naming recap_recall and the handle when recall is offered', () => {
    expect(clearedStubText('read_file', 'call_1', 'x'.repeat(3600), true)).toBe(
      '[recap: tool result cleared to save context — tool read_file, call call_1, 900 tokens. Call the tool again if you need it. Recall it with recap_recall (id call_1).]',
    );
    expect(clearedStubText(null, null, 'x'.repeat(3600), true)).toMatch(/Earlier content can be recalled with recap_recall\.\]$/);
  });

  it('states the result’s own size, about four characters a token, so that the same result always gets the same stub', () => {
    expect(clearedStubText('t', 'c', 'x'.repeat(3601))).toContain(', 901 tokens.');
    expect(clearedStubText('t', 'c', '')).toContain(', 1 tokens.');
  });
});
