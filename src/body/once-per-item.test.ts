import { describe, expect, it } from 'vitest';
import { lastPerItem, oncePerItem } from './once-per-item.js';

// Worked out once per item object, and given again only for the same item (and the same values besides).

describe('oncePerItem', () => {
  it('works a result out once per item object, not per equal item', () => {
    let calls = 0;
    const describeItem = oncePerItem((item: { text: string }) => ({ length: item.text.length, call: ++calls }));
    const a = { text: 'abc' };
    expect(describeItem(a)).toBe(describeItem(a));
    expect(describeItem({ text: 'abc' })).not.toBe(describeItem(a));
    expect(calls).toBe(2);
  });
});

describe('lastPerItem', () => {
  it('gives the last result again while the values besides the item are the same, and makes a new one when any differs', () => {
    const stub = lastPerItem((item: { id: string }, name: string | null, tokens: number) => ({ text: `${item.id} ${name} ${tokens}` }));
    const item = { id: 'call_1' };
    const first = stub(item, 'read', 120);
    expect(stub(item, 'read', 120)).toBe(first);
    expect(stub({ id: 'call_1' }, 'read', 120)).not.toBe(first);
    const renamed = stub(item, null, 120);
    expect(renamed).toEqual({ text: 'call_1 null 120' });
    expect(stub(item, null, 121)).toEqual({ text: 'call_1 null 121' });
    expect(stub(item, null, 121)).not.toBe(renamed);
  });
});
