// A summary is only worth storing if it saves room. An empty reply, one over the limit, or one
// no smaller than what it replaces sends the request down the degraded path (docs/design.md rule 8).

export type SummaryVerdict = 'ok' | 'empty' | 'too_long' | 'not_smaller';

// The summary message adds recap's marker, framing, delimiters and seal (~75 tokens, checked in the
// test) to the text, and the summarizer model may count with another tokenizer than recap: a reply
// its own max_tokens allowed is not "too long" for being a few tokens over by recap's count.
export const FRAMING_ALLOWANCE = 96;
const TOKENIZER_SLACK = 1.1;

/** The most tokens an accepted summary message may take: what planning reserves for it. */
export function summaryReservation(maxTokens: number): number {
  return Math.ceil(maxTokens * TOKENIZER_SLACK) + FRAMING_ALLOWANCE;
}

/**
 * @param replacedTokens tokens of what the summary replaces: the previous summary plus the evicted messages
 * @param summaryTokens tokens of the new summary message
 * @param maxTokens summary_max_tokens
 * @param scale the model's calibration, which summaryTokens carries and maxTokens (an uncalibrated count) does not
 */
export function acceptSummary(text: string, replacedTokens: number, summaryTokens: number, maxTokens: number, scale: (tokens: number) => number = (t) => t): SummaryVerdict {
  if (text.trim() === '') return 'empty';
  if (summaryTokens > scale(summaryReservation(maxTokens))) return 'too_long';
  if (summaryTokens >= replacedTokens) return 'not_smaller';
  return 'ok';
}
