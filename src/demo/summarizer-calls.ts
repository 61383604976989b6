import type { Metrics } from '../observability/metrics.js';
import type { SummarizerCalls } from './turn-table.js';

/** Summarizer calls so far, split by where they ran, read from recap's own metrics. */
export async function summarizerCalls(metrics: Metrics): Promise<SummarizerCalls> {
  const calls: SummarizerCalls = { inline: 0, background: 0 };
  for (const { labels, value } of (await metrics.summarizerCalls.get()).values) {
    if (labels.mode === 'inline' || labels.mode === 'background') calls[labels.mode] += value;
  }
  return calls;
}
