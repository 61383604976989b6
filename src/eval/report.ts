import type { Eviction } from './evicted.js';
import { PROBE_KINDS, type Probe } from './probes.js';

// What `recap eval` found, as the contract's JSON (`--json`) and as a table for people. Each probe
// is answered once per view of the conversation (VIEWS: through recap's compacted view without
// recap_recall, the same view with recap_recall offered, and with the full history); recall is
// reported per view, overall, per kind of probe and per way its content was evicted (summarized,
// or a cleared tool result), and what the recalls cost: calls, hops, upstream tokens, time.
// Another view is another entry of VIEWS and an answer per result.

export const VIEWS = ['compacted', 'with_recall', 'full'] as const;
export type View = (typeof VIEWS)[number];
const VIEW_TITLES: Record<View, string> = { compacted: 'compacted view', with_recall: 'with recap_recall', full: 'full history' };

export interface Answer {
  text: string;
  passed: boolean;
  /** Prompt tokens of the request that got this answer, by recap's count. */
  promptTokens: number;
  /** What the upstream's usage says the answer cost (input + output, summed over recall hops); null without usage. */
  upstreamTokens?: number | null;
  /** Wall time of the request, as the client saw it. */
  latencyMs?: number;
  /** Calls to recap_recall that recap answered for this reply (x-recap-recalls). */
  recalls?: number;
  /** Continuations recap sent upstream for this reply. */
  hops?: number;
}

export interface ProbeResult {
  probe: Probe;
  /** How what the probe asks about left recap's view. */
  evicted: Eviction;
  compacted: Answer;
  /** Null when recall was not offered (see EvalReport.recallSkipped). */
  with_recall: Answer | null;
  /** Null when the full history was not asked (see EvalReport.fullSkipped). */
  full: Answer | null;
}

export interface EvalReport {
  file: string;
  route: 'chat' | 'responses' | 'messages';
  model: string;
  /** The `match` of the model config used. */
  configMatch: string;
  strategy: string;
  ledger: boolean;
  messages: number;
  /** Messages the summary took in. */
  summarizedMessages: number;
  /** Tool results whose content was cleared (a stub in their place). */
  clearedMessages: number;
  summaryTokens: number;
  tokensFull: number;
  tokensCompacted: number;
  summarizerCalls: number;
  /** Summarizer input plus output tokens. */
  summarizerTokens: number;
  ledgerCounts: { kept: number; appended: number; dropped: number };
  /** Why the full history was not asked, or null when it was. */
  fullSkipped: string | null;
  /** Why the probes were not asked with recap_recall offered, or null when they were. */
  recallSkipped: string | null;
  results: ProbeResult[];
}

function recall(results: readonly ProbeResult[], view: View): number | null {
  if (results.length === 0 || results.some((r) => r[view] === null)) return null;
  return round(results.filter((r) => r[view]!.passed).length / results.length);
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/** Probes and recall per view of a group of results: `{probes, recall_compacted, recall_full}`. */
function group(results: readonly ProbeResult[]): Record<string, number | null> {
  return { probes: results.length, ...Object.fromEntries(VIEWS.map((v) => [`recall_${v}`, recall(results, v)])) };
}

const EVICTIONS: readonly Eviction[] = ['summarized', 'cleared'];

export interface RecallCost {
  /** recap_recall calls answered, over all probes. */
  calls: number;
  /** Continuations sent upstream, over all probes. */
  hops: number;
  /** Probes whose answer took at least one recall. */
  probes_recalling: number;
  hops_per_probe: number | null;
  /** Upstream tokens (usage) the recalling probes cost beyond their answer without recall, per call. */
  extra_upstream_tokens_per_recall: number | null;
  /** Wall time the recalling probes took beyond their answer without recall, per call. */
  extra_ms_per_recall: number | null;
}

/** What recalling cost: calls and hops, and the upstream tokens and time beyond the same probe asked without recall. */
export function recallCost(results: readonly ProbeResult[]): RecallCost | null {
  const asked = results.filter((r) => r.with_recall !== null);
  if (asked.length === 0) return null;
  const recalling = asked.filter((r) => (r.with_recall!.recalls ?? 0) > 0);
  const calls = recalling.reduce((n, r) => n + r.with_recall!.recalls!, 0);
  const hops = asked.reduce((n, r) => n + (r.with_recall!.hops ?? 0), 0);
  const extra = (of: (a: Answer) => number | null | undefined): number | null => {
    const pairs = recalling.map((r) => [of(r.with_recall!), of(r.compacted)] as const);
    if (calls === 0 || pairs.some(([a, b]) => typeof a !== 'number' || typeof b !== 'number')) return null;
    // A mean just below zero rounds to -0, which would read "+-0 ms".
    return Math.round(pairs.reduce((n, [a, b]) => n + a! - b!, 0) / calls) || 0;
  };
  return {
    calls,
    hops,
    probes_recalling: recalling.length,
    hops_per_probe: round(hops / asked.length),
    extra_upstream_tokens_per_recall: extra((a) => a.upstreamTokens),
    extra_ms_per_recall: extra((a) => a.latencyMs),
  };
}

export function reportJson(r: EvalReport): Record<string, unknown> {
  return {
    ...group(r.results),
    tokens_full: r.tokensFull,
    tokens_compacted: r.tokensCompacted,
    summarizer_calls: r.summarizerCalls,
    summarizer_tokens: r.summarizerTokens,
    route: r.route,
    model: r.model,
    config_match: r.configMatch,
    strategy: r.strategy,
    ledger: r.ledger,
    ledger_identifiers: r.ledgerCounts,
    messages: r.messages,
    evicted_messages: r.summarizedMessages + r.clearedMessages,
    summarized_messages: r.summarizedMessages,
    cleared_messages: r.clearedMessages,
    summary_tokens: r.summaryTokens,
    full_skipped: r.fullSkipped,
    recall_skipped: r.recallSkipped,
    recall_hops: recallCost(r.results),
    by_kind: Object.fromEntries(PROBE_KINDS.map((kind) => [kind, group(r.results.filter((x) => x.probe.kind === kind))])),
    by_eviction: Object.fromEntries(EVICTIONS.map((how) => [how, group(r.results.filter((x) => x.evicted === how))])),
    results: r.results.map((x) => ({
      kind: x.probe.kind,
      evicted: x.evicted,
      question: x.probe.question,
      expected: x.probe.expected,
      ...Object.fromEntries(VIEWS.map((v) => [v, x[v] && { passed: x[v].passed, answer: x[v].text, ...(v === 'with_recall' ? { recalls: x[v].recalls ?? 0 } : {}) }])),
    })),
  };
}

const n = (x: number) => x.toLocaleString('en-US');
const plural = (count: number, one: string, many = `${one}s`) => `${n(count)} ${count === 1 ? one : many}`;

function score(results: readonly ProbeResult[], view: View): string {
  if (results.length === 0) return '–';
  if (results.some((r) => r[view] === null)) return 'n/a';
  const passed = results.filter((r) => r[view]!.passed).length;
  return `${passed}/${results.length} ${Math.round((100 * passed) / results.length)}%`;
}

/** What left the view: "S messages summarized into a summary message of T tokens, C tool results cleared". */
function evictedLine(r: EvalReport): string {
  const parts: string[] = [];
  if (r.summarizedMessages > 0) parts.push(`${plural(r.summarizedMessages, 'message')} summarized into a summary message of ${n(r.summaryTokens)} tokens`);
  if (r.clearedMessages > 0) parts.push(`${plural(r.clearedMessages, 'tool result')} cleared`);
  return `evicted ${n(r.summarizedMessages + r.clearedMessages)} of ${n(r.messages)} ${r.route === 'chat' ? 'messages' : 'items'}: ${parts.join(', ')}; ${plural(r.results.length, 'probe')} about them`;
}

export function reportTable(r: EvalReport): string {
  const probeTokens = (view: View) => r.results.reduce((sum, x) => sum + (x[view]?.promptTokens ?? 0), 0);
  const row = (label: string, of: readonly ProbeResult[]) => [label, ...VIEWS.map((v) => score(of, v))];
  const viewTokens: Record<View, number> = { compacted: r.tokensCompacted, with_recall: r.tokensCompacted, full: r.tokensFull };
  const rows: string[][] = [
    ['', ...VIEWS.map((v) => VIEW_TITLES[v])],
    ['prompt tokens', ...VIEWS.map((v) => n(viewTokens[v]))],
    row('recall', r.results),
    ...PROBE_KINDS.map((kind) => {
      const of = r.results.filter((x) => x.probe.kind === kind);
      return row(`  ${kind} (${of.length})`, of);
    }),
    ...EVICTIONS.map((how) => {
      const of = r.results.filter((x) => x.evicted === how);
      return row(`  ${how} (${of.length})`, of);
    }),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((cells) => cells[i]!.length)));
  const table = rows.map((cells) =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('   ')
      .trimEnd(),
  );
  const saved = r.tokensFull - r.tokensCompacted;
  const lines = [
    `recap eval ${r.file}: model ${r.model} (config "${r.configMatch}", ${r.strategy}, ledger ${r.ledger ? 'on' : 'off'}${r.route === 'responses' ? ', Responses API' : r.route === 'messages' ? ', Anthropic Messages' : ''})`,
    evictedLine(r),
    '',
    ...table,
    '',
    `summarizer: ${n(r.summarizerCalls)} call${r.summarizerCalls === 1 ? '' : 's'}, ${n(r.summarizerTokens)} tokens (input + output); each request saves ${n(saved)} prompt tokens (${r.tokensFull > 0 ? Math.round((100 * saved) / r.tokensFull) : 0}%)`,
    `ledger: ${n(r.ledgerCounts.appended)} identifiers appended by recap, ${n(r.ledgerCounts.kept)} kept by the summarizer, ${n(r.ledgerCounts.dropped)} dropped for size`,
    `probing cost ${n(probeTokens('compacted'))} prompt tokens through recap${r.fullSkipped ? '' : ` and ${n(probeTokens('full'))} with the full history`}`,
  ];
  const cost = recallCost(r.results);
  if (cost) lines.push(recallLine(cost));
  if (r.recallSkipped) lines.push(`not asked with recap_recall: ${r.recallSkipped}`);
  if (r.fullSkipped) lines.push(`full history not asked: ${r.fullSkipped}`);
  return `${lines.join('\n')}\n`;
}

/** "recap_recall: 9 calls in 8 probes, 9 hops (0.75 a probe); each recall +1,234 upstream tokens, +35 ms". */
function recallLine(c: RecallCost): string {
  const each = [
    c.extra_upstream_tokens_per_recall === null ? null : `${c.extra_upstream_tokens_per_recall >= 0 ? '+' : ''}${n(c.extra_upstream_tokens_per_recall)} upstream tokens`,
    c.extra_ms_per_recall === null ? null : `${c.extra_ms_per_recall >= 0 ? '+' : ''}${n(c.extra_ms_per_recall)} ms`,
  ].filter((x) => x !== null);
  const hops = `${plural(c.hops, 'hop')} (${c.hops_per_probe} a probe)`;
  return `recap_recall: ${plural(c.calls, 'call')} in ${n(c.probes_recalling)} probes, ${hops}${each.length > 0 ? `; each recall ${each.join(', ')}` : ''}`;
}
