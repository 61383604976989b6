import type { ChatMessage } from '../messages/types.js';
import type { Steps } from '../slicing/slicer.js';
import { mentions } from './identifiers.js';
import { applyLedgerSteps, type LedgerResult } from './ledger.js';
import { type LedgerEntry, splitLedger, withLedger } from './ledger-section.js';
import { buildTemplateSummary } from './template.js';

// The ledger on the `template` strategy. The rollup keeps one line per message and loses its
// oldest lines past `template_max_bytes`; the ledger keeps, in far fewer bytes, the identifiers
// those lines held. Both share the byte cap: when the ledger does not fit beside a full rollup,
// the rollup gives up its oldest text, at most half the cap, to make room.

export interface TemplateLedgerInput {
  /** The previous rollup (its ledger section included), or null. */
  previous: string | null;
  evicted: readonly ChatMessage[];
  /** template_max_bytes; 0 means unbounded. */
  maxBytes: number;
  countText: (text: string) => number;
  /** ledgerCandidates of the evicted messages and the previous rollup, best first. */
  candidates: readonly LedgerEntry[];
}

export function* templateWithLedgerSteps(input: TemplateLedgerInput): Steps<LedgerResult> {
  const { evicted, previous, maxBytes, countText, candidates } = input;
  // The rollup carries the previous rollup's lines; its ledger is carried by the ledger itself.
  const rollupPrevious = previous === null ? null : splitLedger(previous).body;
  const rollup = (bytes: number) => buildTemplateSummary({ previous: rollupPrevious, evicted, maxBytes: bytes });
  const ledger = (text: string) => applyLedgerSteps({ candidates, text, maxTokens: Number.POSITIVE_INFINITY, countText, ...(maxBytes > 0 ? { maxBytes } : {}) });
  const whole = rollup(maxBytes);
  const full = yield* ledger(whole);
  if (full.dropped === 0 || maxBytes === 0) return full;
  // The bytes the whole section would take: the entries of what the full rollup does not mention.
  const missing: LedgerEntry[] = [];
  for (const [i, entry] of candidates.entries()) {
    if (!mentions(whole, entry.id)) missing.push(entry);
    if (i % 1024 === 1023) yield;
  }
  const wanted = byteLength(withLedger('', missing));
  const shrunk = yield* ledger(rollup(Math.max(Math.ceil(maxBytes / 2), maxBytes - wanted)));
  return shrunk.appended > full.appended ? shrunk : full;
}

const encoder = new TextEncoder();

function byteLength(text: string): number {
  return encoder.encode(text).length;
}
