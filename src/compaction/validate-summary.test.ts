import { describe, expect, it } from 'vitest';
import { getTokenizer } from '../tokens/encodings.js';
import { summaryCodec } from './summary-message.js';
import { acceptSummary, FRAMING_ALLOWANCE, summaryReservation } from './validate-summary.js';

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

describe('summaryReservation', () => {
  it.each(['o200k_base', 'cl100k_base', 'estimate'] as const)("leaves room for the summary message's framing (%s)", (encoding) => {
    const framing = summaryCodec('a-secret-of-sixteen+', 'tenant').build('x').content as string;
    const messageOverhead = 4;
    expect(getTokenizer(encoding).count(framing) + messageOverhead).toBeLessThan(FRAMING_ALLOWANCE);
    expect(summaryReservation(100)).toBeGreaterThan(100 + FRAMING_ALLOWANCE);
  });
});

describe('summaryReservation where recall is offered', () => {
  it.each(['o200k_base', 'cl100k_base', 'estimate'] as const)('leaves room for the longer header (%s)', (encoding) => {
    const framing = summaryCodec('a-secret-of-sixteen+', 'tenant', { recall: true }).build('x').content as string;
    expect(getTokenizer(encoding).count(framing) + 4).toBeLessThan(FRAMING_ALLOWANCE);
  });
});
