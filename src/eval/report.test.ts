import { describe, expect, it } from 'vitest';
import type { Probe } from './probes.js';
import { type EvalReport, reportJson, reportTable } from './report.js';

const probe = (kind: Probe['kind'], expected: string): Probe => ({ kind, question: `Earlier in this conversation "${expected}"?`, expected: [expected], message: 0 });
const answer = (passed: boolean) => ({ text: passed ? 'yes' : 'no', passed, promptTokens: 100, upstreamTokens: 150, latencyMs: 20 });
/** An answer with recap_recall offered: `recalls` calls answered in as many hops, each costing 500 upstream tokens and 30 ms. */
const recalled = (passed: boolean, recalls: number) => ({ ...answer(passed), recalls, hops: recalls, upstreamTokens: 150 + 500 * recalls, latencyMs: 20 + 30 * recalls });

function report(full: boolean, recall = true): EvalReport {
  return {
    file: 'c.json',
    model: 'm',
    configMatch: 'm*',
    strategy: 'summarize',
    ledger: true,
    route: 'chat',
    messages: 600,
    summarizedMessages: 300,
    clearedMessages: 20,
    summaryTokens: 900,
    tokensFull: 20_000,
    tokensCompacted: 8_000,
    summarizerCalls: 1,
    summarizerTokens: 12_345,
    ledgerCounts: { kept: 3, appended: 10, dropped: 2 },
    fullSkipped: full ? null : 'too long',
    recallSkipped: recall ? null : 'recall is off',
    results: [
      { probe: probe('identifier', 'A-1'), evicted: 'summarized', compacted: answer(true), with_recall: recall ? recalled(true, 0) : null, full: full ? answer(true) : null },
      { probe: probe('identifier', 'B-2'), evicted: 'cleared', compacted: answer(false), with_recall: recall ? recalled(true, 1) : null, full: full ? answer(true) : null },
      { probe: probe('fact', 'C-3'), evicted: 'summarized', compacted: answer(false), with_recall: recall ? recalled(false, 2) : null, full: full ? answer(false) : null },
    ],
  };
}

describe('reportJson', () => {
  it('has the contract keys, recall per view and per kind', () => {
    const json = reportJson(report(true));
    expect(json).toMatchObject({
      probes: 3,
      recall_compacted: 0.333,
      recall_with_recall: 0.667,
      recall_full: 0.667,
      tokens_full: 20_000,
      tokens_compacted: 8_000,
      summarizer_calls: 1,
    });
    expect(json.by_kind).toMatchObject({
      identifier: { probes: 2, recall_compacted: 0.5, recall_with_recall: 1, recall_full: 1 },
      decision: { probes: 0, recall_compacted: null },
    });
    expect(json).toMatchObject({ evicted_messages: 320, summarized_messages: 300, cleared_messages: 20 });
    expect(json.by_eviction).toEqual({
      summarized: { probes: 2, recall_compacted: 0.5, recall_with_recall: 0.5, recall_full: 0.5 },
      cleared: { probes: 1, recall_compacted: 0, recall_with_recall: 1, recall_full: 1 },
    });
    expect((json.results as unknown[])[1]).toEqual({
      kind: 'identifier',
      evicted: 'cleared',
      question: 'Earlier in this conversation "B-2"?',
      expected: ['B-2'],
      compacted: { passed: false, answer: 'no' },
      with_recall: { passed: true, answer: 'yes', recalls: 1 },
      full: { passed: true, answer: 'yes' },
    });
  });

  it('says what the recalls cost: calls, hops, and the upstream tokens and time beyond the answer without recall', () => {
    expect(reportJson(report(true)).recall_hops).toEqual({
      calls: 3,
      hops: 3,
      probes_recalling: 2,
      hops_per_probe: 1,
      extra_upstream_tokens_per_recall: 500,
      extra_ms_per_recall: 30,
    });
  });

  it('has no recall with recap_recall when it was not offered, and says why', () => {
    expect(reportJson(report(true, false))).toMatchObject({ recall_with_recall: null, recall_hops: null, recall_skipped: 'recall is off' });
  });

  it('has no full recall when the full history was not asked', () => {
    expect(reportJson(report(false))).toMatchObject({ recall_full: null, full_skipped: 'too long' });
  });
});

describe('reportTable', () => {
  it('shows the views side by side, and what recalling cost', () => {
    const table = reportTable(report(true));
    expect(table).toMatch(/^ +compacted view +with recap_recall +full history$/m);
    expect(table).toMatch(/^recall +1\/3 33% +2\/3 67% +2\/3 67%$/m);
    expect(table).toMatch(/^prompt tokens +8,000 +8,000 +20,000$/m);
    expect(table).toMatch(/^ {2}identifier \(2\) +1\/2 50% +2\/2 100% +2\/2 100%$/m);
    expect(table).toContain('recap_recall: 3 calls in 2 probes, 3 hops (1 a probe); each recall +500 upstream tokens, +30 ms');
    expect(table).toContain('summarizer: 1 call, 12,345 tokens (input + output); each request saves 12,000 prompt tokens (60%)');
    expect(table).toContain('evicted 320 of 600 messages: 300 messages summarized into a summary message of 900 tokens, 20 tool results cleared; 3 probes about them');
    expect(table).toMatch(/^ {2}cleared \(1\) +0\/1 0% +1\/1 100% +1\/1 100%$/m);
  });

  it('says +0 ms when recalling took a fraction of a millisecond less, not +-0', () => {
    const r = report(true);
    // Three recalls that took 1 ms less in all than the answers without them: -0.33 ms each.
    r.results = r.results.map((x) => (x.with_recall?.recalls ? { ...x, with_recall: { ...x.with_recall, latencyMs: 20 - (x.with_recall.recalls === 1 ? 1 : 0) } } : x));
    expect(reportTable(r)).toContain('each recall +500 upstream tokens, +0 ms');
    const hops = reportJson(r).recall_hops as { extra_ms_per_recall: number };
    expect(Object.is(hops.extra_ms_per_recall, 0)).toBe(true);
  });

  it('says why the full history or recall was not asked', () => {
    const table = reportTable(report(false, false));
    expect(table).toMatch(/^recall +1\/3 33% +n\/a +n\/a$/m);
    expect(table).toContain('full history not asked: too long');
    expect(table).toContain('not asked with recap_recall: recall is off');
  });
});
