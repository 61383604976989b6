import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { noPause } from '../slicing/slicer.js';
import { parsedBytesEstimate, parsedBytesEstimateSliced } from './parsed-size.js';

/** The estimate's definition, a byte at a time: twice the bytes, 48 per `{`, `[`, `,`, `:` outside strings. */
function byDefinition(buf: Buffer): number {
  let structural = 0;
  let inString = false;
  let escaped = false;
  for (const b of buf) {
    if (escaped) escaped = false;
    else if (inString) {
      if (b === 0x5c) escaped = true;
      else if (b === 0x22) inString = false;
    } else if (b === 0x22) inString = true;
    else if (b === 0x7b || b === 0x5b || b === 0x2c || b === 0x3a) structural++;
  }
  return 2 * buf.length + 48 * structural;
}

// Texts full of what ends or escapes a string: quotes, runs of backslashes, and the characters that count outside one.
const tricky = fc.array(fc.constantFrom('"', '\\', '\\\\', '\\"', '{', '[', ',', ':', 'x', 'é', '\n'), { maxLength: 30 }).map((parts) => parts.join(''));
const document = fc.oneof(
  fc.json(),
  fc.array(tricky, { maxLength: 6 }).map((texts) => JSON.stringify({ role: 'tool', content: texts, more: { a: [texts] } })),
);

describe('parsedBytesEstimate', () => {
  it('counts what a byte-by-byte pass counts, whatever the strings hold', () => {
    fc.assert(
      fc.property(document, (json) => {
        const buf = Buffer.from(json);
        expect(parsedBytesEstimate(buf, 0, buf.length)).toBe(byDefinition(buf));
      }),
      { numRuns: 2000, seed: 20261205 },
    );
  });

  it('counts the same in slices, a string or a run of backslashes cut at a slice boundary included', async () => {
    // Slices are 256 KiB: long texts of quotes and backslashes put every kind of byte on a boundary.
    for (const unit of ['\\"', '\\\\', 'a"b\\\\"', '{"k":[1,"\\\\\\""]},']) {
      for (const pad of [0, 1, 2, 3]) {
        const buf = Buffer.from(JSON.stringify({ pad: 'p'.repeat(pad), text: unit.repeat(70_000), also: [unit, { x: unit }] }));
        expect(await parsedBytesEstimateSliced(buf, 0, buf.length, noPause)).toBe(byDefinition(buf));
        expect(parsedBytesEstimate(buf, 0, buf.length)).toBe(byDefinition(buf));
      }
    }
  });

  it('estimates an item inside a longer buffer from its own bytes alone', () => {
    const item = Buffer.from(JSON.stringify({ role: 'user', content: 'say "hi" \\ [a, b]: {c}' }));
    const buf = Buffer.concat([Buffer.from('{"messages":['), item, Buffer.from(',"\\""]}')]);
    expect(parsedBytesEstimate(buf, 13, 13 + item.length)).toBe(byDefinition(item));
  });
});
