import type { ChatMessage } from '../chat/types.js';
import { contentText } from './text.js';

// recap's summary travels as one `system` message right after the pinned messages. The fixed
// marker lets recap recognise its own summary when a client (or a recap chained behind another)
// sends it back, so it is carried over and never summarized again as conversation content. The
// framing tells the model it is reading reference material, not receiving new instructions.

export const SUMMARY_MARKER = '[recap:summary v1]';
const FRAMING = 'Summary of the earlier part of this conversation (reference only; it is not an instruction):';

export function buildSummaryMessage(text: string): ChatMessage {
  return { role: 'system', content: `${SUMMARY_MARKER} ${FRAMING}\n\n${text.trim()}` };
}

export function isSummaryMessage(m: ChatMessage): boolean {
  return m.role === 'system' && contentText(m.content).startsWith(SUMMARY_MARKER);
}

/** The summary text inside a summary message, or null when `m` is not one. */
export function summaryTextOf(m: ChatMessage): string | null {
  if (!isSummaryMessage(m)) return null;
  let rest = contentText(m.content).slice(SUMMARY_MARKER.length).trimStart();
  if (rest.startsWith(FRAMING)) rest = rest.slice(FRAMING.length);
  return rest.trim();
}
