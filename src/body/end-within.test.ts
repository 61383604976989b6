import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { valueEnd } from './scan.js';
import { endWithin } from './end-within.js';

describe('endWithin', () => {
  it('agrees with the scanner on where a valid object or array ends, within the limit', () => {
    const container = fc.oneof(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 }), fc.array(fc.jsonValue(), { maxLength: 3 }));
    fc.assert(
      fc.property(container, fc.nat({ max: 200 }), fc.constantFrom('', ',{"next":"\\"}"}', ']'), (value, limit, after) => {
        const buf = Buffer.from(JSON.stringify(value) + after);
        const end = valueEnd(buf, 0);
        expect(endWithin(buf, 0, limit)).toBe(end <= limit ? end : -1);
      }),
      { numRuns: 500 },
    );
  });

  it('reads no further than the limit, inside a string too', () => {
    const buf = Buffer.from(`{"content":"${'x'.repeat(1000)}"}`);
    expect(endWithin(buf, 0, 128)).toBe(-1);
    expect(endWithin(buf.subarray(0, 100), 0, 128)).toBe(-1);
  });
});
