import { describe, expect, it } from 'vitest';
import { createWriteSequence } from './write-sequence.js';

const a = { tenant: 't', conversation: 'a' };
const b = { tenant: 't', conversation: 'b' };

describe('the sequence of record writes', () => {
  it('tells a write of the key since a read from one before it, and from another key', () => {
    const writes = createWriteSequence(10);
    const read = writes.now();
    expect(writes.writtenSince(a, read)).toBe(false);
    writes.mark(b);
    expect(writes.writtenSince(a, read)).toBe(false);
    writes.mark(a);
    expect(writes.writtenSince(a, read)).toBe(true);
    // A read issued after the write's end saw it.
    expect(writes.writtenSince(a, writes.now())).toBe(false);
  });

  it('counts a key it no longer remembers as written at the highest number it forgot', () => {
    const writes = createWriteSequence(2);
    const read = writes.now();
    writes.mark(a);
    writes.mark(b);
    writes.mark({ tenant: 't', conversation: 'c' });
    // `a` was forgotten: a read from before its write still sees a write, one from after sees none.
    expect(writes.writtenSince(a, read)).toBe(true);
    expect(writes.writtenSince(a, writes.now())).toBe(false);
    expect(writes.writtenSince({ tenant: 't', conversation: 'never' }, read)).toBe(true);
  });
});
