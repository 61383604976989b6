import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringifyJson, stringifyJsonSliced } from './stringify.js';

describe('stringifyJson', () => {
  it('writes what JSON.stringify writes for every JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(stringifyJson(value)).toBe(JSON.stringify(value));
      }),
      { numRuns: 500 },
    );
  });

  it('matches JSON.stringify on the odd cases: non-finite numbers, -0, undefined members, __proto__', () => {
    const value = JSON.parse('{"__proto__":1,"a":[1e400,-0,null],"b":"\\u2028\\ud800"}') as Record<string, unknown>;
    value.c = undefined;
    (value.a as unknown[]).push(undefined);
    expect(stringifyJson(value)).toBe(JSON.stringify(value));
    expect(stringifyJson(undefined)).toBe('');
  });

  it('sorts keys and drops null members when asked', () => {
    expect(stringifyJson({ b: 1, a: { d: null, c: [null] } }, { sortKeys: true, dropNulls: true })).toBe('{"a":{"c":[null]},"b":1}');
  });

  it('writes a value nested 100,000 levels deep', () => {
    const depth = 100_000;
    const text = `${'{"a":['.repeat(depth)}1${']}'.repeat(depth)}`;
    expect(stringifyJson(JSON.parse(text))).toBe(text);
  });
});

describe('stringifyJsonSliced', () => {
  it('writes what stringifyJson writes, keys sorted in runs and merged for huge objects', async () => {
    const keys = 20_000;
    const wide: Record<string, unknown> = { 5: 'index', 0: 'first' };
    for (let i = 0; i < keys; i++) wide[`k${(i * 7919) % keys}`] = i % 3 ? i : null;
    const value = { a: [wide, { z: 1, y: [wide] }] };
    let pauses = 0;
    const pieces = await stringifyJsonSliced(value, { sortKeys: true, dropNulls: true }, () => {
      pauses++;
      return undefined;
    });
    const sliced = pieces.join('');
    expect(sliced).toBe(stringifyJson(value, { sortKeys: true, dropNulls: true }));
    expect(pauses).toBeGreaterThan(5);
    const rebuilt: Record<string, unknown> = {};
    for (const k of Object.keys(wide).sort()) if (wide[k] !== null) rebuilt[k] = wide[k];
    expect(sliced).toContain(JSON.stringify(rebuilt));
  });
});
