import type { Round } from '../compaction/rounds.js';
import type { Checkpoint, ConversationRecord } from '../store/store.js';

// Which stored summary a request uses. Candidates are "no summary" and every checkpoint whose
// covered messages are exactly the request's first messages after the pinned ones (rule 6). The
// least compacted candidate that fits under the trigger wins: a conversation keeps the same summary
// (the same prompt prefix, friendly to the upstream's prompt cache) until it no longer fits, and a
// checkpoint prepared in the background is used only from the turn that needs it.

export interface Base {
  /** Messages after the pinned ones that the summary covers (0 for none). */
  covered: number;
  summary: string | null;
  checkpoint: Checkpoint | null;
}

export interface CandidateCosts {
  base: Base;
  /** Tokens of the view built on this base (pinned + summary + uncovered + priming). */
  tokens: number;
}

/** Checkpoints that apply to a request whose post-pinned messages have these chain links. */
export function matchingCheckpoints(
  record: ConversationRecord | null,
  links: readonly string[],
  roundStarts: ReadonlySet<number>,
): Checkpoint[] {
  if (!record) return [];
  return record.checkpoints
    .filter((cp) => cp.covered > 0 && cp.covered <= links.length && links[cp.covered - 1] === cp.chainHash && roundStarts.has(cp.covered))
    .sort((a, b) => a.covered - b.covered);
}

/** The first candidate (least covered) that fits, else the most covered one as the base to compact from. */
export function chooseBase(candidates: readonly CandidateCosts[], triggerTokens: number): { choice: CandidateCosts; fits: boolean } {
  for (const c of candidates) if (c.tokens <= triggerTokens) return { choice: c, fits: true };
  return { choice: candidates[candidates.length - 1]!, fits: false };
}

/** Round starts relative to the first message after the pinned ones. */
export function relativeRoundStarts(rounds: readonly Round[], pinnedCount: number): Set<number> {
  return new Set(rounds.map((r) => r.start - pinnedCount));
}
