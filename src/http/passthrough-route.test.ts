import { describe, expect, it } from 'vitest';
import { passthroughRouteName } from './passthrough-route.js';

describe('passthroughRouteName', () => {
  it('names the API family of the path from a fixed list, anything else `other`', () => {
    expect(passthroughRouteName('/v1/embeddings')).toBe('embeddings');
    expect(passthroughRouteName('/v1/models/gpt-4o?x=1')).toBe('models');
    expect(passthroughRouteName('/v1/messages/count_tokens')).toBe('messages');
    expect(passthroughRouteName('/v1/made-up-thing')).toBe('other');
    expect(passthroughRouteName('/v1/')).toBe('other');
  });
});
