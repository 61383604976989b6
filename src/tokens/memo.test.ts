import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../messages/types.js';
import { messageHash } from '../conversation/canonical.js';
import { createConversationMemo } from './memo.js';

const history: ChatMessage[] = [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content: 'What is a hash chain?' },
  { role: 'assistant', content: 'Each link hashes the previous link and one message.' },
  { role: 'user', content: 'And a memo?' },
];
const counts = history.map((_, i) => 10 + i);

function remembered(messages: ChatMessage[] = history, maxBytes = 1 << 20) {
  const memo = createConversationMemo(maxBytes);
  memo.remember('t.c', 'o200k_base', messages, messages.map(messageHash), counts.slice(0, messages.length));
  return memo;
}

describe('conversation memo', () => {
  it('recalls the hash and count of every message equal to the one at its index last time', () => {
    const next: ChatMessage[] = [...history.map((m) => ({ ...m, refusal: null })), { role: 'assistant', content: 'It spares hashing.' }];
    const recalled = remembered().recall('t.c', 'o200k_base', next)!;
    expect(recalled.hashes).toEqual([...history.map(messageHash), undefined]);
    expect(recalled.tokens).toEqual([...counts, undefined]);
  });

  it('recalls nothing for an edited, moved or re-attributed message', () => {
    const next: ChatMessage[] = [
      history[0]!,
      { role: 'user', content: 'What is a hash chain? ' },
      { role: 'user', content: 'Each link hashes the previous link and one message.' },
      { role: 'user', content: 'And a memo?', name: 'ann' },
    ];
    expect(remembered().recall('t.c', 'o200k_base', next)!.hashes).toEqual([messageHash(history[0]!), undefined, undefined, undefined]);
    expect(remembered().recall('t.c', 'o200k_base', history.slice(1))!.hashes).toEqual([undefined, undefined, undefined]);
  });

  it('keeps no message with tool calls or content parts, and nothing for another encoding or conversation', () => {
    const withParts: ChatMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'ok' },
    ];
    const memo = remembered(withParts);
    expect(memo.recall('t.c', 'o200k_base', withParts)!.hashes).toEqual([undefined, undefined, messageHash(withParts[2]!)]);
    expect(memo.recall('t.c', 'cl100k_base', withParts)).toBeUndefined();
    expect(memo.recall('t.other', 'o200k_base', withParts)).toBeUndefined();
  });

  it('treats an absent, null or empty name alike, as the canonical hash does', () => {
    const memo = remembered([{ role: 'user', content: 'hi', name: '' }]);
    const recalled = memo.recall('t.c', 'o200k_base', [{ role: 'user', content: 'hi', name: null } as unknown as ChatMessage]);
    expect(recalled!.hashes).toEqual([messageHash({ role: 'user', content: 'hi' })]);
  });

  it('stays within its byte bound and keeps no conversation larger than a quarter of it', () => {
    const long = (n: number): ChatMessage[] => [{ role: 'user', content: 'x'.repeat(n) }];
    const memo = createConversationMemo(100_000);
    for (let i = 0; i < 50; i++) {
      memo.remember(`t.${i}`, 'o200k_base', long(10_000), ['h'], [1]);
      expect(memo.bytes).toBeLessThanOrEqual(100_000);
    }
    expect(memo.recall('t.0', 'o200k_base', long(10_000))).toBeUndefined();
    expect(memo.recall('t.49', 'o200k_base', long(10_000))!.hashes).toEqual(['h']);
    memo.remember('t.49', 'o200k_base', long(30_000), ['h'], [1]);
    expect(memo.recall('t.49', 'o200k_base', long(30_000))).toBeUndefined();
    const off = createConversationMemo(0);
    off.remember('t.c', 'o200k_base', history, history.map(messageHash), counts);
    expect(off.recall('t.c', 'o200k_base', history)).toBeUndefined();
  });

  it('only ever recalls the hash the message itself has (generated histories and edits)', () => {
    const message = fc.record({
      role: fc.constantFrom('system', 'user', 'assistant', 'tool'),
      content: fc.oneof(fc.constantFrom('a', 'b', 'a '), fc.string({ maxLength: 8 })),
      name: fc.option(fc.constantFrom('', 'ann', 'bob'), { nil: undefined }),
      tool_call_id: fc.option(fc.constantFrom('c1', 'c2'), { nil: undefined }),
    }) as fc.Arbitrary<ChatMessage>;
    fc.assert(
      fc.property(fc.array(message, { maxLength: 12 }), fc.array(message, { maxLength: 12 }), (before, after) => {
        const memo = createConversationMemo(1 << 20);
        memo.remember(
          't.c',
          'o200k_base',
          before,
          before.map(messageHash),
          before.map((_, i) => i),
        );
        const recalled = memo.recall('t.c', 'o200k_base', after)!;
        after.forEach((m, i) => {
          const hash = recalled.hashes[i];
          if (hash !== undefined) expect(hash).toBe(messageHash(m));
          if (i < before.length && messageHash(before[i]!) === messageHash(m)) expect(hash).toBe(messageHash(m));
        });
      }),
      { numRuns: 500 },
    );
  });
});
