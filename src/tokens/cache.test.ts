import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../messages/types.js';
import { createTokenCache, entryBytes, tokenCacheKey } from './cache.js';
import { createTokenCounter } from './counter.js';

const messages: ChatMessage[] = Array.from({ length: 10_000 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `message number ${i}` }));
// Every key has the same length: encoding name, ':' and a base64url SHA-256.
const BYTES_PER_ENTRY = entryBytes(tokenCacheKey('o200k_base', messages[0] as ChatMessage));

describe('token cache', () => {
  it('keeps 10,000 distinct messages within its entry bound', () => {
    const cache = createTokenCache({ cache_max_entries: 1_000, cache_max_bytes: 64 * 1024 * 1024 });
    const counter = createTokenCounter({ encoding: 'o200k_base', cache });
    for (const m of messages) counter.countMessage(m);
    expect(cache.entries).toBe(1_000);
    expect(cache.bytes).toBe(1_000 * BYTES_PER_ENTRY);
  });

  it('keeps 10,000 distinct messages within its byte bound', () => {
    const maxBytes = 500 * BYTES_PER_ENTRY + BYTES_PER_ENTRY / 2;
    const cache = createTokenCache({ cache_max_entries: 100_000, cache_max_bytes: maxBytes });
    const counter = createTokenCounter({ encoding: 'o200k_base', cache });
    for (const m of messages) {
      counter.countMessage(m);
      expect(cache.bytes).toBeLessThanOrEqual(maxBytes);
    }
    expect(cache.entries).toBe(500);
  });

  it('evicts the least recently used entries first', () => {
    const cache = createTokenCache({ cache_max_entries: 2, cache_max_bytes: 1_000_000 });
    cache.set('a', 1);
    cache.set('b', 2);
    cache.get('a');
    cache.set('c', 3);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([1, undefined, 3]);
  });

  it('keys by encoding and canonical form', () => {
    const m: ChatMessage = { role: 'user', content: 'hi' };
    expect(tokenCacheKey('o200k_base', m)).not.toBe(tokenCacheKey('cl100k_base', m));
    expect(tokenCacheKey('o200k_base', { content: 'hi', role: 'user', name: null })).toBe(tokenCacheKey('o200k_base', m));
  });
});
