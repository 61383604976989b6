// A summary is only worth storing if it saves room. An empty reply, one over the limit, or one
// no smaller than what it replaces sends the request down the degraded path (DESIGN rule 8).

export type SummaryVerdict = 'ok' | 'empty' | 'too_long' | 'not_smaller';

/**
 * @param replacedTokens tokens of what the summary replaces: the previous summary plus the evicted messages
 * @param summaryTokens tokens of the new summary message
 * @param maxTokens summary_max_tokens
 */
export function acceptSummary(text: string, replacedTokens: number, summaryTokens: number, maxTokens: number): SummaryVerdict {
  if (text.trim() === '') return 'empty';
  if (summaryTokens > maxTokens) return 'too_long';
  if (summaryTokens >= replacedTokens) return 'not_smaller';
  return 'ok';
}
