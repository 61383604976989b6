import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { objectNote } from './object-notes.js';

describe('objectNote', () => {
  it('keeps one value per object and kind, apart from other kinds', () => {
    const hash = objectNote<object, string>();
    const tokens = objectNote<object, number>();
    const a = { role: 'user', content: 'hi' };
    const b = { role: 'user', content: 'hi' };
    hash.set(a, 'h1');
    tokens.set(a, 3);
    expect(hash.get(a)).toBe('h1');
    expect(tokens.get(a)).toBe(3);
    expect(hash.get(b)).toBeUndefined();
    hash.set(a, 'h2');
    expect(hash.get(a)).toBe('h2');
  });

  it('is invisible to what reads or copies the object', () => {
    const note = objectNote<object, string>();
    const m = { role: 'tool', tool_call_id: 'c1', content: 'ok' };
    note.set(m, 'h');
    expect(JSON.stringify(m)).toBe('{"role":"tool","tool_call_id":"c1","content":"ok"}');
    expect(Object.keys(m)).toEqual(['role', 'tool_call_id', 'content']);
    expect(Object.getOwnPropertySymbols(m).every((s) => !Object.getOwnPropertyDescriptor(m, s)!.enumerable)).toBe(true);
    expect(isDeepStrictEqual(m, { role: 'tool', tool_call_id: 'c1', content: 'ok' })).toBe(true);
    expect(m).toStrictEqual({ role: 'tool', tool_call_id: 'c1', content: 'ok' });
    // A copy is a new object: it starts without the note, as with a WeakMap.
    expect(note.get({ ...m })).toBeUndefined();
    expect(note.get(structuredClone(m))).toBeUndefined();
    expect(note.get(Object.assign({}, m))).toBeUndefined();
  });

  it('notes arrays and objects that take no new property', () => {
    const note = objectNote<object, number>();
    const tools = [{ type: 'function' }];
    note.set(tools, 1);
    expect(note.get(tools)).toBe(1);
    expect(JSON.stringify(tools)).toBe('[{"type":"function"}]');
    const frozen = Object.freeze({ role: 'system', content: 'x' });
    note.set(frozen, 2);
    expect(note.get(frozen)).toBe(2);
    expect(Object.getOwnPropertySymbols(frozen)).toEqual([]);
  });
});

describe("the request path's notes on a message", () => {
  it('are one hidden property of the message, not entries of WeakMaps', async () => {
    const { messageHash } = await import('../conversation/canonical.js');
    const { createTokenCounter } = await import('../tokens/counter.js');
    const { chatWire } = await import('../wire/chat/items.js');
    const m = { role: 'tool' as const, tool_call_id: 'call_1', content: '{"rows":42}' };
    const hash = messageHash(m);
    const tokens = createTokenCounter({ encoding: 'o200k_base' }).countMessage(m);
    chatWire.describe(m);
    // Each of these is noted on the object, under one symbol, and found again there.
    const symbols = Object.getOwnPropertySymbols(m);
    expect(symbols).toHaveLength(1);
    expect(Object.values((m as Record<symbol, object>)[symbols[0]!]!)).toEqual(expect.arrayContaining([hash, tokens]));
    expect(Object.keys((m as Record<symbol, object>)[symbols[0]!]!)).toHaveLength(3);
    expect(JSON.stringify(m)).toBe('{"role":"tool","tool_call_id":"call_1","content":"{\\"rows\\":42}"}');
  });
});
