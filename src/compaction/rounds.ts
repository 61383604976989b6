import type { ChatMessage } from '../chat/types.js';
import { callsOf } from './tool-calls.js';

// Cuts between rounds are the only cuts recap makes (DESIGN rule 1). A round starts at a user
// message and holds everything up to the next one, so a tool call and its result always travel
// together and a kept tail never starts with a `tool` message.
//
// A recap summary message inside the leading system/developer block (a client that echoes the
// forwarded view, or recap chained behind a recap with the same secret) is not pinned: it is
// reported as `summaryIndex` so that the caller uses its text as the previous summary. It is then
// carried over into the next summary and never enters a transcript, so it is never summarized
// again as conversation. Which messages are recap's own is the caller's call (`isOwnSummary`: the
// seal check), not the marker's.

/** Messages [start, end) of the request. */
export interface Round {
  start: number;
  end: number;
}

export interface Segmentation {
  /** Length of the leading system/developer block; those messages are never summarized. */
  pinnedCount: number;
  /** Index of the last of recap's own summaries inside the leading block, or null. */
  summaryIndex: number | null;
  /** Rounds covering [pinnedCount, messages.length), oldest first; the last is the newest. */
  rounds: Round[];
}

function isPinnedRole(m: ChatMessage): boolean {
  return m.role === 'system' || m.role === 'developer';
}

export function segment(messages: readonly ChatMessage[], isOwnSummary: (m: ChatMessage) => boolean): Segmentation {
  let pinnedCount = 0;
  let summaryIndex: number | null = null;
  while (pinnedCount < messages.length && isPinnedRole(messages[pinnedCount]!)) {
    if (isOwnSummary(messages[pinnedCount]!)) summaryIndex = pinnedCount;
    pinnedCount++;
  }

  // Messages before the first user message (an assistant greeting) form a round of their own.
  const starts = messages.map((m, i) => i === pinnedCount || (i > pinnedCount && m.role === 'user'));
  joinToolResultsToTheirCalls(messages, starts);

  const rounds: Round[] = [];
  for (let i = pinnedCount; i < messages.length; i++) {
    if (!starts[i]) continue;
    const previous = rounds.at(-1);
    if (previous) previous.end = i;
    rounds.push({ start: i, end: messages.length });
  }
  return { pinnedCount, summaryIndex, rounds };
}

/**
 * A client that puts a user message between a tool call and its result would otherwise let a cut
 * separate them; removing every round start between the call and its result keeps them together.
 */
function joinToolResultsToTheirCalls(messages: readonly ChatMessage[], starts: boolean[]): void {
  const issuedAt = new Map<string, number>();
  messages.forEach((m, i) => {
    for (const call of callsOf(m)) if (call.id !== null) issuedAt.set(call.id, i);
    const callIndex = m.role === 'tool' && typeof m.tool_call_id === 'string' ? issuedAt.get(m.tool_call_id) : undefined;
    if (callIndex === undefined) return;
    for (let k = callIndex + 1; k <= i; k++) starts[k] = false;
  });
}

/** The leading block without the summary it carries: what stays first, untouched. */
export function pinnedMessages(messages: readonly ChatMessage[], seg: Segmentation): ChatMessage[] {
  return messages.slice(0, seg.pinnedCount).filter((_, i) => i !== seg.summaryIndex);
}
