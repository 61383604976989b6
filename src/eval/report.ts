import { PROBE_KINDS, type Probe } from './probes.js';

// What `recap eval` found, as the contract's JSON (`--json`) and as a table for people.

export interface Answer {
  text: string;
  passed: boolean;
  /** Prompt tokens of the request that got this answer, by recap's count. */
  promptTokens: number;
}

export interface ProbeResult {
  probe: Probe;
  compacted: Answer;
  /** Null when the full history was not asked (see EvalReport.fullSkipped). */
  full: Answer | null;
}

export interface EvalReport {
  file: string;
  model: string;
  /** The `match` of the model config used. */
  configMatch: string;
  strategy: string;
  ledger: boolean;
  messages: number;
  evictedMessages: number;
  summaryTokens: number;
  tokensFull: number;
  tokensCompacted: number;
  summarizerCalls: number;
  /** Summarizer input plus output tokens. */
  summarizerTokens: number;
  ledgerCounts: { kept: number; appended: number; dropped: number };
  /** Why the full history was not asked, or null when it was. */
  fullSkipped: string | null;
  results: ProbeResult[];
}

function recall(results: readonly ProbeResult[], side: 'compacted' | 'full'): number | null {
  if (results.length === 0 || results.some((r) => r[side] === null)) return null;
  return round(results.filter((r) => r[side]!.passed).length / results.length);
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

export function reportJson(r: EvalReport): Record<string, unknown> {
  const byKind = Object.fromEntries(
    PROBE_KINDS.map((kind) => {
      const of = r.results.filter((x) => x.probe.kind === kind);
      return [kind, { probes: of.length, recall_compacted: recall(of, 'compacted'), recall_full: recall(of, 'full') }];
    }),
  );
  return {
    probes: r.results.length,
    recall_compacted: recall(r.results, 'compacted'),
    recall_full: recall(r.results, 'full'),
    tokens_full: r.tokensFull,
    tokens_compacted: r.tokensCompacted,
    summarizer_calls: r.summarizerCalls,
    summarizer_tokens: r.summarizerTokens,
    model: r.model,
    config_match: r.configMatch,
    strategy: r.strategy,
    ledger: r.ledger,
    ledger_identifiers: r.ledgerCounts,
    messages: r.messages,
    evicted_messages: r.evictedMessages,
    summary_tokens: r.summaryTokens,
    full_skipped: r.fullSkipped,
    by_kind: byKind,
    results: r.results.map((x) => ({
      kind: x.probe.kind,
      question: x.probe.question,
      expected: x.probe.expected,
      compacted: { passed: x.compacted.passed, answer: x.compacted.text },
      full: x.full && { passed: x.full.passed, answer: x.full.text },
    })),
  };
}

const n = (x: number) => x.toLocaleString('en-US');

function score(results: readonly ProbeResult[], side: 'compacted' | 'full'): string {
  if (results.length === 0) return '–';
  if (results.some((r) => r[side] === null)) return 'n/a';
  const passed = results.filter((r) => r[side]!.passed).length;
  return `${passed}/${results.length} ${Math.round((100 * passed) / results.length)}%`;
}

export function reportTable(r: EvalReport): string {
  const probeTokens = (side: 'compacted' | 'full') => r.results.reduce((sum, x) => sum + (x[side]?.promptTokens ?? 0), 0);
  const rows: [string, string, string][] = [
    ['', 'compacted view', 'full history'],
    ['prompt tokens', n(r.tokensCompacted), n(r.tokensFull)],
    ['recall', score(r.results, 'compacted'), score(r.results, 'full')],
    ...PROBE_KINDS.map((kind): [string, string, string] => {
      const of = r.results.filter((x) => x.probe.kind === kind);
      return [`  ${kind} (${of.length})`, score(of, 'compacted'), score(of, 'full')];
    }),
  ];
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((row) => row[i]!.length)));
  const table = rows.map(([a, b, c]) => `${a.padEnd(widths[0]!)}   ${b.padStart(widths[1]!)}   ${c.padStart(widths[2]!)}`.trimEnd());
  const saved = r.tokensFull - r.tokensCompacted;
  const lines = [
    `recap eval ${r.file}: model ${r.model} (config "${r.configMatch}", ${r.strategy}, ledger ${r.ledger ? 'on' : 'off'})`,
    `evicted ${n(r.evictedMessages)} of ${n(r.messages)} messages into a summary message of ${n(r.summaryTokens)} tokens; ${r.results.length} probes about them`,
    '',
    ...table,
    '',
    `summarizer: ${n(r.summarizerCalls)} call${r.summarizerCalls === 1 ? '' : 's'}, ${n(r.summarizerTokens)} tokens (input + output); each request saves ${n(saved)} prompt tokens (${r.tokensFull > 0 ? Math.round((100 * saved) / r.tokensFull) : 0}%)`,
    `ledger: ${n(r.ledgerCounts.appended)} identifiers appended by recap, ${n(r.ledgerCounts.kept)} kept by the summarizer, ${n(r.ledgerCounts.dropped)} dropped for size`,
    `probing cost ${n(probeTokens('compacted'))} prompt tokens through recap${r.fullSkipped ? '' : ` and ${n(probeTokens('full'))} with the full history`}`,
  ];
  if (r.fullSkipped) lines.push(`full history not asked: ${r.fullSkipped}`);
  return `${lines.join('\n')}\n`;
}
