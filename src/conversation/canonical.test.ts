import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../messages/types.js';
import { hashChain, messageHash, primeMessageHash } from './canonical.js';

describe('canonical message form', () => {
  it('ignores key order, null vs absent fields and SDK extras', () => {
    const sent = { role: 'assistant', content: 'hi', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] };
    const echoed = {
      refusal: null,
      annotations: [],
      tool_calls: [{ function: { arguments: '{}', name: 'f' }, type: 'function', id: 'c1' }],
      content: 'hi',
      role: 'assistant',
      name: null,
    };
    expect(messageHash(echoed)).toBe(messageHash(sent));
  });

  it('treats empty and null content alike but distinguishes any text change', () => {
    expect(messageHash({ role: 'assistant', content: null })).toBe(messageHash({ role: 'assistant', content: '' }));
    expect(messageHash({ role: 'user', content: 'a' })).not.toBe(messageHash({ role: 'user', content: 'b' }));
    expect(messageHash({ role: 'user', content: 'a' })).not.toBe(messageHash({ role: 'system', content: 'a' }));
  });

  it('hashes a name or tool_call_id that is not a string by its JSON, whatever its toString', () => {
    const poisoned = { role: 'tool', name: { toString: 1 }, tool_call_id: { toString: 1 }, content: 'x' } as unknown as ChatMessage;
    expect(messageHash(poisoned)).toBe(messageHash({ ...poisoned, name: { toString: 1 } } as unknown as ChatMessage));
    expect(messageHash({ role: 'user', name: { a: 1 }, content: 'x' } as unknown as ChatMessage)).not.toBe(
      messageHash({ role: 'user', name: { a: 2 }, content: 'x' } as unknown as ChatMessage),
    );
    expect(messageHash({ role: 'user', name: 5, content: 'x' } as unknown as ChatMessage)).toBe(messageHash({ role: 'user', name: '5', content: 'x' }));
  });

  it('sorts the keys of content parts', () => {
    expect(messageHash({ role: 'user', content: [{ text: 'x', type: 'text' }] })).toBe(messageHash({ role: 'user', content: [{ type: 'text', text: 'x' }] }));
  });
});

describe('hash chain', () => {
  it('identifies a prefix: equal prefixes give equal links, a change alters every later link', () => {
    const a = hashChain(['h1', 'h2', 'h3']);
    const b = hashChain(['h1', 'h2', 'hX']);
    const c = hashChain(['hX', 'h2', 'h3']);
    expect(a[1]).toBe(b[1]);
    expect(a[2]).not.toBe(b[2]);
    expect(c.every((link, i) => link !== a[i])).toBe(true);
  });

  it('gives the same links when it knows the items, whatever order and seed they came in before', () => {
    const pool = Array.from({ length: 6 }, (_, i) => ({ role: 'user', content: `m${i}` }) as ChatMessage);
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.array(fc.nat({ max: 5 }), { maxLength: 8 }), fc.constantFrom('', 'seed-a', 'seed-b')), { maxLength: 6 }), (runs) => {
        for (const [order, seed] of runs) {
          const items = order.map((i) => pool[i]!);
          const hashes = items.map((m) => messageHash(m));
          expect(hashChain(hashes, seed, items)).toEqual(hashChain(hashes, seed));
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('messageHash', () => {
  it('cannot be fooled by moving text between fields', () => {
    expect(messageHash({ role: 'user', name: 'ab', content: 'c' })).not.toBe(messageHash({ role: 'user', name: 'a', content: 'bc' }));
    expect(messageHash({ role: 'tool', tool_call_id: 'x', content: '1' })).not.toBe(messageHash({ role: 'tool', content: 'x1' }));
  });

  it('tells string content from content parts with the same text', () => {
    expect(messageHash({ role: 'user', content: 'hi' })).not.toBe(messageHash({ role: 'user', content: [{ type: 'text', text: 'hi' }] }));
  });
});

describe('canonical hashes across versions', () => {
  // Computed by the recursive implementation before it was replaced: stored checkpoints are
  // chains of these hashes, so the same messages must keep the same hashes.
  it('keeps the hashes of earlier versions', () => {
    const samples: ChatMessage[] = [
      { role: 'user', content: 'hello' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'hi', cache_control: null },
          { type: 'image_url', image_url: { url: 'data:x', detail: 'low' } },
        ],
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } },
          { id: 'c2', function: { name: 'g', arguments: { z: [1, null, { y: null, x: 2 }] } } } as never,
        ],
      },
      { role: 'assistant', content: null, function_call: { name: 'f', arguments: '{}' }, name: 'bot' },
      { role: 'tool', tool_call_id: 'c1', content: 'ok' },
    ];
    expect(samples.map(messageHash)).toEqual([
      'NiA40G-_Cc-EpaEax5DoiCCynk1Eq01gzPSD5wg_X3k',
      'orphnHXP4wUrAbOJS_jVWxR2UmZ66bqIyL0vmqlURxc',
      '_go0ZARRGFy7QUvaNIdiAm4kTl-ZstT3euXZYTcl9fY',
      'ie0rb_8h8CXTyGaDdFPuXi_6xrPQzI0FbycToUCQuzE',
      '2Jpr4jbY8inJkRQQqRUV5hqOGWfODOXJj-g8MHfXbKQ',
    ]);
  });

  it('hashes content and arguments nested 100,000 levels deep', () => {
    const deep = JSON.parse(`${'{"a":['.repeat(100_000)}1${']}'.repeat(100_000)}`) as unknown;
    const part = { role: 'user', content: [{ type: 'text', text: 'x', extra: deep }] } as ChatMessage;
    const call = { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: deep } }] } as unknown as ChatMessage;
    expect(messageHash(part)).toMatch(/^[\w-]{43}$/);
    expect(messageHash(call)).not.toBe(messageHash(part));
  });
});

describe('primeMessageHash', () => {
  it('works out in slices the hash messageHash gives, which messageHash then returns', async () => {
    const calls = Array.from({ length: 20_000 }, (_, i) => ({ id: `c${i}`, type: 'function', function: { name: 'f', arguments: { i, note: null } } }));
    const wide = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${(i * 7919) % 10_000}`, i]));
    const messages = [
      { role: 'assistant', content: null, tool_calls: calls },
      { role: 'user', content: [{ type: 'text', text: 'x', meta: wide }] },
      { role: 'tool', tool_call_id: 'c1', name: 'lookup', content: 'plain text', function_call: { name: 'g', arguments: '{}' } },
      { role: 'user', name: 'ann', content: [] },
      // Hashed in chunks: each chunk boundary falls inside an emoji's surrogate pair.
      { role: 'user', content: `a${'😀'.repeat(600_000)}` },
    ] as unknown as ChatMessage[];
    const expected = messages.map((m) => messageHash({ ...m }));
    let pauses = 0;
    for (const m of messages) {
      await primeMessageHash(m, () => {
        pauses++;
        return undefined;
      });
    }
    expect(pauses).toBeGreaterThan(10);
    expect(messages.map(messageHash)).toEqual(expected);
  });
});
