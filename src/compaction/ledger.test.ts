import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../messages/types.js';
import { runSync } from '../slicing/slicer.js';
import { getTokenizer } from '../tokens/encodings.js';
import { applyLedger, ledgerForSummarySteps, ledgerReserve } from './ledger.js';
import { ledgerCandidates } from './ledger-candidates.js';
import { LEDGER_HEADING, splitLedger } from './ledger-section.js';

const countText = (text: string) => getTokenizer('o200k_base').count(text);
const user = (content: string): ChatMessage => ({ role: 'user', content });
const SUMMARY = '## Goal\n- The user is fixing a billing refund.';

function ledger(text: string, evicted: ChatMessage[], previous: string | null = null, maxTokens = 1024) {
  return applyLedger({ candidates: ledgerCandidates(evicted, previous), text, maxTokens, countText });
}
const ids = (text: string) => splitLedger(text).entries.map((e) => e.id);

describe('applyLedger', () => {
  it('appends the identifiers the summary lacks in a section at its end, a line per provenance saying where they came from', () => {
    const out = ledger(SUMMARY, [user('Ticket SUP-4411 is about /etc/billing/rates.yaml.'), { role: 'assistant', content: 'It failed with ECONNREFUSED.' }]);
    expect(out.text).toBe(`${SUMMARY}\n\n${LEDGER_HEADING}\n- user: SUP-4411, /etc/billing/rates.yaml\n- assistant: ECONNREFUSED`);
    expect(out).toMatchObject({ kept: 0, appended: 3, dropped: 0 });
  });

  it('does not repeat what the summary already mentions', () => {
    const out = ledger(`${SUMMARY} Ticket SUP-4411.`, [user('Ticket SUP-4411, file /etc/billing/rates.yaml')]);
    expect(ids(out.text)).toEqual(['/etc/billing/rates.yaml']);
    expect(out).toMatchObject({ kept: 1, appended: 1, dropped: 0 });
  });

  it('leaves a summary that mentions everything as it is', () => {
    const out = ledger(`${SUMMARY} Ticket SUP-4411.`, [user('Ticket SUP-4411')]);
    expect(out.text).toBe(`${SUMMARY} Ticket SUP-4411.`);
    expect(out).toMatchObject({ kept: 1, appended: 0, dropped: 0 });
  });

  it('carries the previous ledger forward when the new summary drops its entries, with their provenance', () => {
    const first = ledger(SUMMARY, [user('Ticket SUP-4411')]).text;
    const second = ledger('## Goal\n- Still billing.', [{ role: 'assistant', content: 'Looking at INV-77.' }], first);
    expect(splitLedger(second.text).entries).toEqual([
      { id: 'SUP-4411', from: 'user' },
      { id: 'INV-77', from: 'assistant' },
    ]);
    expect(second.text.split(LEDGER_HEADING)).toHaveLength(2);
  });

  it('reads a section written before entries said where they came from', () => {
    const old = `${SUMMARY}\n\n## Identifiers from earlier turns (kept verbatim by recap, newest first)\n- SUP-4411\n- /etc/billing/rates.yaml`;
    const out = ledger('## Goal\n- Still billing.', [{ role: 'tool', tool_call_id: 'c', content: 'trace 7f3a9c21' }], old);
    expect(splitLedger(out.text).entries).toEqual([
      { id: 'SUP-4411', from: 'earlier' },
      { id: '/etc/billing/rates.yaml', from: 'earlier' },
      { id: '7f3a9c21', from: 'tool' },
    ]);
  });

  it('keeps one section when the summarizer copied the previous one into its reply', () => {
    const previous = ledger(SUMMARY, [user('Ticket SUP-4411')]).text;
    const copied = `${previous}\n\n## Next steps\n- none`;
    const out = ledger(copied, [user('Then INV-77')], previous);
    expect(out.text.split(LEDGER_HEADING)).toHaveLength(2);
    expect(out.text.endsWith(`${LEDGER_HEADING}\n- user: INV-77, SUP-4411`)).toBe(true);
    expect(out.text).toContain('## Next steps\n- none');
  });

  it('survives any number of carry-overs by a summarizer that drops every identifier', () => {
    let summary: string | null = null;
    for (let generation = 1; generation <= 12; generation++) {
      const evicted = Array.from({ length: 25 }, (_, i) => {
        const turn = (generation - 1) * 25 + i + 1;
        return user(turn === 3 ? 'Ticket SUP-4411, config /etc/billing/rates.yaml, commit 7f3a9c21.' : `Turn ${turn}: nothing new, just talk.`);
      });
      summary = ledger(`## Goal\n- Generation ${generation} of a lossy summary.`, evicted, summary).text;
    }
    for (const id of ['SUP-4411', '/etc/billing/rates.yaml', '7f3a9c21']) expect(ids(summary!)).toContain(id);
  });

  it('stays within maxTokens, dropping the lowest ranked (here: the oldest) identifiers first', () => {
    const evicted = Array.from({ length: 200 }, (_, i) => user(`Order ORD-${10_000 + i} shipped.`));
    const out = ledger(SUMMARY, evicted, null, 120);
    expect(countText(out.text)).toBeLessThanOrEqual(120);
    const entries = ids(out.text);
    expect(entries[0]).toBe('ORD-10199');
    expect(entries).not.toContain('ORD-10000');
    expect(out.appended).toBe(entries.length);
    expect(out.appended + out.dropped).toBe(200);
    expect(out.dropped).toBeGreaterThan(0);
  });

  it('fits as many entries as the limit allows, to the token', () => {
    const evicted = Array.from({ length: 60 }, (_, i) => user(`Order ORD-${10_000 + i} shipped.`));
    for (const limit of [40, 77, 150, 333]) {
      const out = ledger(SUMMARY, evicted, null, limit);
      expect(countText(out.text)).toBeLessThanOrEqual(limit);
      if (out.dropped > 0 && out.appended > 0) {
        const oneMore = `${out.text}, ORD-${10_059 - out.appended}`;
        expect(countText(oneMore)).toBeGreaterThan(limit);
      }
    }
  });

  it('never cuts the summary itself: over the limit, it gets no ledger', () => {
    const long = `## Goal\n- ${'word '.repeat(300)}`;
    const out = ledger(long, [user('Ticket SUP-4411')], null, 100);
    expect(out.text).toBe(long.trim());
    expect(out).toMatchObject({ appended: 0, dropped: 1 });
  });

  it('stays within maxBytes too', () => {
    const evicted = Array.from({ length: 50 }, (_, i) => user(`Order ORD-${10_000 + i} shipped.`));
    const out = applyLedger({ candidates: ledgerCandidates(evicted, null), text: SUMMARY, maxTokens: 10_000, countText, maxBytes: 300 });
    expect(new TextEncoder().encode(out.text).length).toBeLessThanOrEqual(300);
    expect(out.appended).toBeGreaterThan(0);
    expect(out.dropped).toBeGreaterThan(0);
  });

  it('never puts a redacted secret back, from the messages or from an old summary', () => {
    const evicted = [user('Use sk-proj-abc123def456ghi789jkl012 on postgres://app:hunter2hunter2@db.internal:5432/app, AKIAIOSFODNN7EXAMPLE')];
    // A summary stored before a pattern existed may still hold a secret in its ledger.
    const previous = `${SUMMARY}\n\n${LEDGER_HEADING}\n- user: ghp_${'a1'.repeat(18)}\n- call: SUP-4411`;
    const out = ledger(SUMMARY, evicted, previous);
    for (const secret of ['sk-proj', 'hunter2', 'AKIA', 'ghp_']) expect(out.text).not.toContain(secret);
    expect(ids(out.text)).toEqual(['postgres://app:[REDACTED:url_credentials]@db.internal:5432/app', '[REDACTED:github_token]', 'SUP-4411']);
  });
});

describe('ledgerForSummary', () => {
  it('keeps the summary smaller than what it replaces', () => {
    const evicted = Array.from({ length: 10 }, (_, i) => user(`ORD-${10_000 + i}`));
    const evictedTokens = 10 * 12;
    const out = runSync(ledgerForSummarySteps({ candidates: ledgerCandidates(evicted, null), previous: null, text: SUMMARY, summaryMaxTokens: 1024, evictedTokens, countText }));
    expect(countText(out.text)).toBeLessThanOrEqual(evictedTokens - 96);
    expect(out.dropped).toBeGreaterThan(0);
  });
});

describe('ledgerReserve', () => {
  it('asks the summarizer to leave room for the candidates, at most a quarter of the limit', () => {
    expect(ledgerReserve([], 1000, countText)).toBe(0);
    const few = ledgerReserve([{ id: 'SUP-4411', from: 'task' }], 1000, countText);
    expect(few).toBe(countText(`\n\n${LEDGER_HEADING}\n- task: SUP-4411\n`));
    const many = Array.from({ length: 300 }, (_, i) => ({ id: `ORD-${10_000 + i}`, from: 'user' as const }));
    expect(ledgerReserve(many, 1000, countText)).toBe(250);
  });
});
