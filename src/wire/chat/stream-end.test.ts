import { describe, expect, it } from 'vitest';
import { chatStreamEnd } from './stream-end.js';

const event = (data: string, name?: string) => chatStreamEnd({ data, ...(name ? { event: name } : {}) });

describe('chatStreamEnd', () => {
  it('ends successfully at [DONE] and fails at an error event', () => {
    expect(event('[DONE]')).toBe('success');
    expect(event('{"error":{"message":"overloaded","type":"server_error"}}')).toBe('failure');
    expect(event('{"message":"overloaded"}', 'error')).toBe('failure');
    expect(event('{"id":"c","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}')).toBeUndefined();
  });
});
