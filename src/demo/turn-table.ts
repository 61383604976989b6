// The demo's output: one table row per turn as it completes, then totals.

export type Action = 'none' | 'reused' | 'compacted' | 'degraded';

export interface TurnResult {
  turn: number;
  tokensIn: number;
  tokensOut: number;
  action: Action;
  latencyMs: number;
}

export interface SummarizerCalls {
  inline: number;
  background: number;
}

const COLUMNS = [
  { title: 'turn', width: 4 },
  { title: 'client sent', width: 11 },
  { title: 'forwarded', width: 9 },
  { title: 'action', width: 9 },
  { title: 'latency', width: 7 },
] as const;

const n = (value: number): string => value.toLocaleString('en-US');

export function tableHeader(): string {
  const titles = COLUMNS.map((c, i) => (i === 3 ? c.title.padEnd(c.width) : c.title.padStart(c.width)));
  const rule = COLUMNS.map((c) => '-'.repeat(c.width));
  return `${titles.join('  ')}\n${rule.join('  ')}\n`;
}

export function tableRow(r: TurnResult): string {
  const cells = [String(r.turn), n(r.tokensIn), n(r.tokensOut), r.action, `${Math.round(r.latencyMs)} ms`];
  return `${cells.map((cell, i) => (i === 3 ? cell.padEnd(COLUMNS[i]!.width) : cell.padStart(COLUMNS[i]!.width))).join('  ')}\n`;
}

export function tableFooter(results: readonly TurnResult[], calls: SummarizerCalls): string {
  const sent = results.reduce((sum, r) => sum + r.tokensIn, 0);
  const forwarded = results.reduce((sum, r) => sum + r.tokensOut, 0);
  const saved = sent - forwarded;
  const share = sent > 0 ? Math.round((saved / sent) * 100) : 0;
  const count = (action: Action) => results.filter((r) => r.action === action).length;
  return [
    '',
    `actions: ${count('none')} none, ${count('compacted')} compacted, ${count('reused')} reused, ${count('degraded')} degraded`,
    `summarizer calls: ${calls.inline + calls.background} (${calls.inline} inline on the request path, ${calls.background} in the background)`,
    `prompt tokens: client sent ${n(sent)}, recap forwarded ${n(forwarded)}, saved ${n(saved)} (${share}%)`,
    '',
  ].join('\n');
}
