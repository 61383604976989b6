import type { ChatMessage } from '../chat/types.js';
import { buildSummaryMessage } from './summary-message.js';

/**
 * The messages sent upstream: pinned messages first and untouched, then the summary (if any) as
 * one system message, then the kept messages verbatim (DESIGN rule 2).
 */
export function assembleView(
  pinned: readonly ChatMessage[],
  summaryText: string | null,
  kept: readonly ChatMessage[],
): ChatMessage[] {
  const summary = summaryText === null ? [] : [buildSummaryMessage(summaryText)];
  return [...pinned, ...summary, ...kept];
}
