import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../messages/types.js';
import { runSync } from '../slicing/slicer.js';
import { getTokenizer } from '../tokens/encodings.js';
import { ledgerCandidates } from './ledger-candidates.js';
import { LEDGER_HEADING, splitLedger } from './ledger-section.js';
import { buildTemplateSummary, TEMPLATE_HEADER } from './template.js';
import { type TemplateLedgerInput, templateWithLedgerSteps } from './template-ledger.js';

const templateWithLedger = (input: Omit<TemplateLedgerInput, 'candidates'>) =>
  runSync(templateWithLedgerSteps({ ...input, candidates: ledgerCandidates(input.evicted, input.previous) }));

const countText = (text: string) => getTokenizer('o200k_base').count(text);
const bytes = (s: string): number => new TextEncoder().encode(s).length;
const user = (content: string): ChatMessage => ({ role: 'user', content });

function turns(from: number, n: number, special: Record<number, string> = {}): ChatMessage[] {
  return Array.from({ length: n }, (_, i) => user(special[from + i] ?? `Turn ${from + i}: we talked about the weather and nothing else at all.`));
}

describe('templateWithLedger', () => {
  it('keeps identifiers from lines the rollup cut, within template_max_bytes', () => {
    const evicted = turns(1, 40, { 3: 'Ticket SUP-4411 concerns /etc/billing/rates.yaml.' });
    const plain = buildTemplateSummary({ previous: null, evicted, maxBytes: 600 });
    expect(plain).not.toContain('SUP-4411');
    const out = templateWithLedger({ previous: null, evicted, maxBytes: 600, countText });
    expect(bytes(out.text)).toBeLessThanOrEqual(600);
    expect(out.text.startsWith(TEMPLATE_HEADER)).toBe(true);
    expect(splitLedger(out.text).entries.map((e) => e.id)).toEqual(expect.arrayContaining(['SUP-4411', '/etc/billing/rates.yaml']));
  });

  it('adds nothing when the rollup holds every identifier', () => {
    const evicted = [user('Ticket SUP-4411 is open.')];
    const out = templateWithLedger({ previous: null, evicted, maxBytes: 8192, countText });
    expect(out.text).toBe(buildTemplateSummary({ previous: null, evicted, maxBytes: 8192 }));
    expect(out).toMatchObject({ kept: 1, appended: 0, dropped: 0 });
  });

  it('catches identifiers past the first line of a message', () => {
    const out = templateWithLedger({ previous: null, evicted: [user('Deploy failed.\nThe log is at /var/log/app/deploy-7.log')], maxBytes: 8192, countText });
    expect(out.text).toBe(`${TEMPLATE_HEADER}\nuser: Deploy failed.\n\n${LEDGER_HEADING}\n- user: /var/log/app/deploy-7.log`);
  });

  it('carries its ledger over generations without copying it into the rollup', () => {
    let summary: string | null = null;
    for (let g = 0; g < 10; g++) {
      summary = templateWithLedger({ previous: summary, evicted: turns(g * 30 + 1, 30, { 3: 'Ticket SUP-4411 is open.' }), maxBytes: 1200, countText }).text;
      expect(bytes(summary)).toBeLessThanOrEqual(1200);
    }
    expect(summary!.split(LEDGER_HEADING)).toHaveLength(2);
    expect(splitLedger(summary!).entries).toContainEqual({ id: 'SUP-4411', from: 'user' });
    expect(splitLedger(summary!).body).not.toContain('SUP-4411');
  });
});
