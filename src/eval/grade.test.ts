import { describe, expect, it } from 'vitest';
import { passes } from './grade.js';

describe('passes', () => {
  it('needs every expected string, case and spacing aside', () => {
    expect(passes('It was SUP-4411.', ['sup-4411'])).toBe(true);
    expect(passes('The limit is 250   EUR\nper order', ['250 EUR'])).toBe(true);
    expect(passes('The limit is 250 EUR', ['250 EUR', 'per order'])).toBe(false);
    expect(passes("I don't know.", ['SUP-4411'])).toBe(false);
  });

  it('reads through Markdown emphasis, but not inside identifiers', () => {
    expect(passes('It was **SUP-4411** in `src/app/main.ts`', ['SUP-4411', 'src/app/main.ts'])).toBe(true);
    expect(passes('user_42 and ERR_INVALID_ARG', ['user_42', 'ERR_INVALID_ARG'])).toBe(true);
    expect(passes('user42', ['user_42'])).toBe(false);
  });

  it('does not take a partial, longer or reformatted value for the expected one', () => {
    expect(passes('ORD-441', ['ORD-4411'])).toBe(false);
    expect(passes('ORD-44110', ['ORD-4411'])).toBe(false);
    expect(passes('$4500', ['$4,500'])).toBe(false);
  });
});
