import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { noPause } from '../slicing/slicer.js';
import { parsedBytesEstimate, parsedBytesEstimateSliced } from './parsed-size.js';
import { createSeenItems, LOOKUP_BYTES, type SeenEntry } from './seen-items.js';

// The cache of parsed items answers only for the exact bytes it kept, wherever they sit in a later
// request, and holds no more than its bound.

function keepAll(seen: ReturnType<typeof createSeenItems>, texts: readonly string[]): object[] {
  const buf = Buffer.from(`[${texts.join(',')}]`);
  let at = 1;
  return texts.map((t) => {
    const item = JSON.parse(t) as object;
    seen.keep(buf, at, at + Buffer.byteLength(t), item, parsedBytesEstimate(buf, at, at + Buffer.byteLength(t)));
    at += Buffer.byteLength(t) + 1;
    return item;
  });
}

const long = (text: string) => JSON.stringify({ role: 'tool', tool_call_id: 'call_1', content: text.repeat(40) });

describe('createSeenItems', () => {
  it('keeps the newest of items sharing a lookup key when together they pass the entry bound, not neither', () => {
    const seen = createSeenItems(100_000);
    // Two items whose first LOOKUP_BYTES are the same, each over an eighth of the bound: together
    // over the quarter one entry may take.
    const head = `{"role":"tool","tool_call_id":"call_1","content":"${'x'.repeat(LOOKUP_BYTES)}`;
    const older = `${head}${'a'.repeat(4_000)}"}`;
    const newer = `${head}${'b'.repeat(4_000)}"}`;
    const [olderItem] = keepAll(seen, [older]);
    expect(seen.find(Buffer.from(older), 0)?.entry.item).toBe(olderItem);
    const [newerItem] = keepAll(seen, [newer]);
    expect(seen.find(Buffer.from(newer), 0)?.entry.item).toBe(newerItem);
    expect(seen.bytes).toBeGreaterThan(0);
  });

  it('finds an item kept from one request at any place of another, and where its bytes end', () => {
    const seen = createSeenItems(1 << 20);
    const short = '{"role":"user","content":"hi"}';
    const [a, b] = keepAll(seen, [short, long('ok ')]);
    const next = Buffer.from(`{"messages":[ ${long('ok ')} , ${short}]}`);
    const longAt = next.indexOf('{"role":"tool"');
    expect(seen.find(next, longAt)).toMatchObject({ entry: { item: b }, end: longAt + long('ok ').length });
    const shortAt = next.indexOf(short);
    expect(seen.find(next, shortAt)?.entry.item).toBe(a);
    expect(seen.find(next, shortAt)?.end).toBe(shortAt + short.length);
  });

  it('never answers for bytes that differ from the kept ones, wherever the difference is', () => {
    const text = long('abc ');
    fc.assert(
      fc.property(fc.nat({ max: text.length - 1 }), fc.constantFrom('x', '7', ' ', '\\'), (at, by) => {
        const seen = createSeenItems(1 << 20);
        keepAll(seen, [text]);
        const edited = text.slice(0, at) + by + text.slice(at + 1);
        const found = seen.find(Buffer.from(edited), 0);
        if (edited === text) expect(found).toBeDefined();
        else expect(found).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });

  it('tells apart items that share their first bytes, and a short item from the bytes after it', () => {
    const seen = createSeenItems(1 << 20);
    const head = 'x'.repeat(LOOKUP_BYTES);
    const one = JSON.stringify({ content: `${head} one` });
    const two = JSON.stringify({ content: `${head} two` });
    const [a, b] = keepAll(seen, [one, two]);
    expect(seen.find(Buffer.from(one), 0)?.entry.item).toBe(a);
    expect(seen.find(Buffer.from(two), 0)?.entry.item).toBe(b);
    expect(seen.find(Buffer.from(JSON.stringify({ content: `${head} three` })), 0)).toBeUndefined();
    const [c] = keepAll(seen, ['{"a":1}']);
    expect(seen.find(Buffer.from('{"a":1},{"b":2}'), 0)).toMatchObject({ entry: { item: c }, end: 7 });
    expect(seen.find(Buffer.from('{"a":12}'), 0)).toBeUndefined();
  });

  it('answers the same with or without the item before, whatever that item was linked to', () => {
    const texts = Array.from({ length: 8 }, (_, i) => long(`item ${i} `));
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat({ max: 7 }), fc.nat({ max: 7 })), { maxLength: 12 }),
        fc.array(fc.nat({ max: 7 }), { minLength: 2, maxLength: 6 }),
        fc.option(fc.nat(), { nil: undefined }),
        (links, order, edit) => {
          const seen = createSeenItems(1 << 20);
          keepAll(seen, texts);
          const entry = (i: number) => seen.find(Buffer.from(texts[i]!), 0)!.entry;
          for (const [a, b] of links) seen.link(entry(a), entry(b));
          const sent = order.map((i) => texts[i]!);
          if (edit !== undefined) {
            const at = edit % sent[1]!.length;
            sent[1] = `${sent[1]!.slice(0, at)}${sent[1]![at] === '7' ? '8' : '7'}${sent[1]!.slice(at + 1)}`;
          }
          const buf = Buffer.from(sent.join(','));
          let pos = 0;
          let before: SeenEntry | undefined;
          for (const text of sent) {
            const plain = seen.find(buf, pos);
            expect(seen.find(buf, pos, before)?.entry).toBe(plain?.entry);
            before = plain?.entry;
            pos += text.length + 1;
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps objects and arrays only, and nothing when its bound is 0', () => {
    const seen = createSeenItems(1 << 20);
    seen.keep(Buffer.from('"text"'), 0, 6, new String('text'), 12);
    seen.keep(Buffer.from('12'), 0, 2, new Number(12), 4);
    expect(seen.entries).toBe(0);
    const list = [1, 2];
    seen.keep(Buffer.from('[1,2]'), 0, 5, list, 58);
    expect(seen.find(Buffer.from('[1,2],3'), 0)).toMatchObject({ entry: { item: list }, end: 5 });
    const off = createSeenItems(0);
    keepAll(off, ['{"a":1}']);
    expect(off.find(Buffer.from('{"a":1}'), 0)).toBeUndefined();
    expect(off.bytes).toBe(0);
  });

  it('holds no more than its bound (estimated), dropping the least recently used', () => {
    const maxBytes = 64 * 1024;
    const seen = createSeenItems(maxBytes);
    const texts = Array.from({ length: 200 }, (_, i) => long(`step ${i} `));
    const items = keepAll(seen, texts);
    expect(seen.bytes).toBeLessThanOrEqual(maxBytes);
    expect(seen.bytes).toBeGreaterThan(maxBytes / 2);
    expect(seen.find(Buffer.from(texts[0]!), 0)).toBeUndefined();
    expect(seen.find(Buffer.from(texts[199]!), 0)?.entry.item).toBe(items[199]);
    // An item bigger than a quarter of the bound is not kept at all.
    expect(seen.keeps(maxBytes / 4 / 3 - 400, 0)).toBe(true);
    expect(seen.keeps(maxBytes / 4 / 3, 0)).toBe(false);
    // Nor past half of the bound for one request.
    expect(seen.keeps(1000, maxBytes / 2 - 3000)).toBe(true);
    expect(seen.keeps(1000, maxBytes / 2 - 2999)).toBe(false);
    keepAll(seen, [long('y'.repeat(400))]);
    expect(seen.find(Buffer.from(long('y'.repeat(400))), 0)).toBeUndefined();
  });
});

describe('parsedBytesEstimate', () => {
  it('counts text twice and every object, array, member and element more, not the commas of a text', () => {
    const text = Buffer.from('{"a":[1,{}],"b":"x, y: \\"{[z"}');
    // `{`, `:`, `[`, `,`, `{`, `,`, `:` outside strings: 7 structural characters.
    expect(parsedBytesEstimate(text, 0, text.length)).toBe(2 * text.length + 7 * 48);
  });

  it('gives the same in slices, strings and escapes running across them', async () => {
    const big = Buffer.from(JSON.stringify({ a: Array.from({ length: 100_000 }, (_, i) => ({ [`k${i}`]: 'x, \\"y: {' })) }));
    expect(await parsedBytesEstimateSliced(big, 3, big.length - 1, noPause)).toBe(parsedBytesEstimate(big, 3, big.length - 1));
  });
});
