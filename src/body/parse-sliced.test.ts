import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSeenItems } from './seen-items.js';
import { noPause } from '../slicing/slicer.js';
import { parseSliced } from './parse-sliced.js';
import { stringifyJson } from './stringify.js';

// The sliced parse must be JSON.parse in every respect: the same value for every document it
// accepts, a SyntaxError for every document it refuses. `pieceBytes: 1` walks every object and
// array, so small documents exercise the scanner's checks as a big body would.

const walkAll = { pieceBytes: 1 };

async function sliced(text: string, options = walkAll): Promise<{ ok: true; value: unknown } | { ok: false }> {
  try {
    return { ok: true, value: (await parseSliced(Buffer.from(text), noPause, options)).value };
  } catch (err) {
    expect(err).toBeInstanceOf(SyntaxError);
    return { ok: false };
  }
}

function native(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

describe('parseSliced', () => {
  it('equals JSON.parse on generated documents with any whitespace', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), fc.constantFrom('', ' ', '\n\t', ' \r\n '), async (value, ws) => {
        const text = JSON.stringify(value, null, ws === '' ? undefined : ws).replace(/,/g, `${ws},${ws}`);
        expect(await sliced(text)).toEqual(native(text));
      }),
      { numRuns: 300 },
    );
  });

  it.each([
    ['{"a":1,}'],
    ['[1,]'],
    ['[,1]'],
    ['{"a" 1}'],
    ['{"a":1 "b":2}'],
    ['[1 2]'],
    ['{1:2}'],
    ['{"a":}'],
    ['[01]'],
    ['["\u0001"]'],
    ['{"a\u0001":1}'],
    ['{"\\x":1}'],
    ['[tru]'],
    [']'],
    ['['],
    ['{"a":[1}}'],
    ['{"a":1}x'],
    ['"abc'],
    [''],
    ['  '],
    ['{"a":"b\\"}'],
  ])('refuses %j as JSON.parse does', async (text) => {
    expect(native(text)).toEqual({ ok: false });
    expect(await sliced(text)).toEqual({ ok: false });
  });

  it('refuses or accepts arbitrary text exactly where JSON.parse does', async () => {
    const jsonish = fc.string({ unit: fc.constantFrom('{', '}', '[', ']', '"', ':', ',', ' ', '1', 'a', '\\', 'n', 'u', '0', '-', 'e', '.', 't', 'r') });
    await fc.assert(
      fc.asyncProperty(jsonish, async (text) => {
        expect(await sliced(text)).toEqual(native(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps JSON.parse’s member semantics: last duplicate wins, __proto__ is an own key, integer keys first', async () => {
    const text = '{"b":1,"a":2,"b":3,"__proto__":{"x":1},"2":0,"1":0}';
    const { value } = await parseSliced(Buffer.from(text), noPause, walkAll);
    expect(value).toEqual(JSON.parse(text));
    expect(Object.keys(value as object)).toEqual(Object.keys(JSON.parse(text) as object));
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.hasOwn(value as object, '__proto__')).toBe(true);
  });

  it('gives objects whose canonical JSON (keys recorded while parsing) equals that of JSON.parse’s', async () => {
    const text = '{"b":1,"10":0,"a":{"y":null,"2":[1],"x":2},"b":3,"1":0,"__proto__":5}';
    const { value } = await parseSliced(Buffer.from(text), noPause, walkAll);
    const canonical = { sortKeys: true, dropNulls: true };
    expect(stringifyJson(value, canonical)).toBe(stringifyJson(JSON.parse(text), canonical));
    expect(stringifyJson(value)).toBe(JSON.stringify(JSON.parse(text)));
  });

  it('decodes UTF-8 and escapes as JSON.parse does, also across the pieces', async () => {
    const text = JSON.stringify({ a: ['héllo', '日本語', '😀', '\u2028'], 'k\u00e9y': { '\n': 'x' } }).replace('"a"', '"\\u0061"');
    expect(await sliced(text)).toEqual(native(text));
  });

  it('reports the top-level members and the element spans of walked arrays', async () => {
    const text = '{ "model" : "m", "messages": [ {"role":"user"} , {"role":"x"} ], "seed": 9007199254740993 }';
    const buf = Buffer.from(text);
    const { members } = await parseSliced(buf, noPause, walkAll);
    expect(members!.map((m) => [m.key, buf.toString('utf8', m.value.start, m.value.end)])).toEqual([
      ['model', '"m"'],
      ['messages', '[ {"role":"user"} , {"role":"x"} ]'],
      ['seed', '9007199254740993'],
    ]);
    expect(members![1]!.elements!.map((e) => buf.toString('utf8', e.start, e.end))).toEqual(['{"role":"user"}', '{"role":"x"}']);
  });

  it('parses nesting of any depth without recursing on the call stack', async () => {
    const depth = 200_000;
    const text = `{"messages":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    const { value } = await parseSliced(Buffer.from(text), noPause, walkAll);
    expect(Object.keys(value as object)).toEqual(['messages']);
  });

  it('gives JSON.parse’s value with items seen before taken from the cache, across edits and reorders', async () => {
    const item = fc.oneof(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 4 }), fc.jsonValue());
    const request = fc.array(item, { maxLength: 6 });
    await fc.assert(
      fc.asyncProperty(fc.array(request, { minLength: 2, maxLength: 4 }), fc.boolean(), async (requests, walk) => {
        const seen = createSeenItems(1 << 20);
        const pool: unknown[] = requests.flat();
        for (const fresh of requests) {
          // Later requests resend earlier items, in any order, next to new ones.
          const sent = [...fresh, ...pool.filter((_, i) => (i + fresh.length) % 3 === 0)];
          const tools = JSON.stringify(pool.slice(0, 2));
          const text = `{"model":"m","messages":[${sent.map((v) => JSON.stringify(v)).join(' , ')}],"tools":${tools},"n":1}`;
          const items = { key: 'messages', seen, whole: new Set(['tools']) };
          const { value, members } = await parseSliced(Buffer.from(text), noPause, { ...(walk ? walkAll : {}), items });
          expect(value).toEqual(JSON.parse(text));
          expect(members!.find((m) => m.key === 'messages')!.elements).toHaveLength(sent.length);
        }
      }),
      { numRuns: 200 },
    );
  });
});
