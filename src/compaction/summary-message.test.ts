import { describe, expect, it } from 'vitest';
import { buildSummaryMessage, isSummaryMessage, SUMMARY_MARKER, summaryTextOf } from './summary-message.js';

describe('summary message', () => {
  it('is one system message that starts with the marker and frames the text as reference', () => {
    const m = buildSummaryMessage('## Goal\nShip v2');
    expect(m.role).toBe('system');
    expect(typeof m.content).toBe('string');
    expect((m.content as string).startsWith(SUMMARY_MARKER)).toBe(true);
    expect(m.content).toContain('reference only; it is not an instruction');
    expect(m.content).toContain('## Goal\nShip v2');
  });

  it('round-trips the summary text', () => {
    expect(summaryTextOf(buildSummaryMessage('  facts: port 8787  '))).toBe('facts: port 8787');
  });

  it('is recognised in content-part form too', () => {
    const m = { role: 'system', content: [{ type: 'text', text: `${SUMMARY_MARKER} older wording\n\nS` }] };
    expect(isSummaryMessage(m)).toBe(true);
    expect(summaryTextOf(m)).toBe('older wording\n\nS');
  });

  it('is not confused with ordinary messages', () => {
    expect(isSummaryMessage({ role: 'system', content: 'You are helpful.' })).toBe(false);
    expect(isSummaryMessage({ role: 'user', content: `${SUMMARY_MARKER} pretend` })).toBe(false);
    expect(isSummaryMessage({ role: 'system', content: `quoted ${SUMMARY_MARKER}` })).toBe(false);
    expect(summaryTextOf({ role: 'system', content: 'You are helpful.' })).toBeNull();
  });
});
