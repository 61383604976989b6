import { describe, expect, it } from 'vitest';
import { acceptSummary } from './validate-summary.js';

describe('acceptSummary', () => {
  it('accepts a non-empty summary within the limit and smaller than what it replaces', () => {
    expect(acceptSummary('## Goal\nShip', 2000, 300, 1024)).toBe('ok');
  });

  it('rejects an empty or blank reply', () => {
    expect(acceptSummary('', 2000, 0, 1024)).toBe('empty');
    expect(acceptSummary(' \n\t', 2000, 3, 1024)).toBe('empty');
  });

  it('rejects a summary over summary_max_tokens', () => {
    expect(acceptSummary('long', 5000, 1300, 1024)).toBe('too_long');
    expect(acceptSummary('a few tokens over by our count', 5000, 1100, 1024)).toBe('ok');
  });

  it('rejects a summary not smaller than what it replaces', () => {
    expect(acceptSummary('s', 300, 300, 1024)).toBe('not_smaller');
    expect(acceptSummary('s', 300, 400, 1024)).toBe('not_smaller');
  });
});
