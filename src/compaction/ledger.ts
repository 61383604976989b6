import type { Steps } from '../slicing/slicer.js';
import { runSync } from '../slicing/slicer.js';
import { mentions } from './identifiers.js';
import { entryMinBytes, entryTokens, LEDGER_HEADING, type LedgerEntry, type Provenance, splitLedger, withLedger } from './ledger-section.js';
import { FRAMING_ALLOWANCE } from './validate-summary.js';

// The identifier ledger (docs/design.md rule 5). A summarizer drops or paraphrases identifiers, and each
// carry-over loses more; after a few generations the ticket number of turn 3 is gone. recap
// extracts the identifiers of the evicted messages and of the previous summary itself, ranked by
// where they came from (ledger-candidates.ts), and those the new summary lacks are appended
// verbatim in a ledger section at its end (ledger-section.ts), best first, as many as the
// summary's size allows. The section is recognised again on the next carry-over, so an identifier
// survives any number of generations until better-ranked ones push it out.

// Each looks through the whole summary text: a thousand take about a millisecond.
const CANDIDATES_PER_STEP = 1024;

export interface LedgerInput {
  /** What the summary should carry, best first (ledger-candidates.ts). */
  candidates: readonly LedgerEntry[];
  /** The new summary as the summarizer (or the template) wrote it. */
  text: string;
  /** The most tokens the final text may have (the summary's size limit). */
  maxTokens: number;
  countText: (text: string) => number;
  /** A second bound in UTF-8 bytes (the template's cap), if any. The summary's own text is never cut. */
  maxBytes?: number;
}

export interface LedgerCounts {
  /** Identifiers the new summary already mentions. */
  kept: number;
  /** Identifiers recap appended in the ledger section. */
  appended: number;
  /** Identifiers missing from the summary that the size limit left out (the lowest ranked). */
  dropped: number;
}

export interface LedgerResult extends LedgerCounts {
  text: string;
}

/** The new summary text with a ledger of the candidates it lacks, within `maxTokens` (and `maxBytes`). */
export function applyLedger(input: LedgerInput): LedgerResult {
  return runSync(applyLedgerSteps(input));
}

/** applyLedger in steps: an agent's long span has 100k candidates to look for in the summary. */
export function* applyLedgerSteps(input: LedgerInput): Steps<LedgerResult> {
  const { body } = splitLedger(input.text);
  const { candidates } = input;
  const missing: LedgerEntry[] = [];
  for (const [i, entry] of candidates.entries()) {
    if (!mentions(body, entry.id)) missing.push(entry);
    if (i % CANDIDATES_PER_STEP === CANDIDATES_PER_STEP - 1) yield;
  }
  const kept = candidates.length - missing.length;
  const maxBytes = input.maxBytes ?? Infinity;
  const within = (text: string) => byteLength(text) <= maxBytes && (input.maxTokens === Infinity || input.countText(text) <= input.maxTokens);
  if (missing.length === 0 || !within(withLedger(body, missing.slice(0, 1)))) {
    return { text: body, kept, appended: 0, dropped: missing.length };
  }
  // More entries never take fewer tokens or bytes, so the most that fit are found by bisection.
  // Every entry takes at least its bytes and a separator, and a token, which bounds the search.
  const byteRoom = maxBytes - byteLength(withLedger(body, []));
  let lo = 1;
  let hi = Math.min(missing.length, input.maxTokens);
  for (let i = 0, bytes = 0; i < hi; i++) {
    bytes += entryMinBytes(missing[i]!);
    if (bytes > byteRoom) hi = i;
  }
  hi = Math.max(hi, 1);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (within(withLedger(body, missing.slice(0, mid)))) lo = mid;
    else hi = mid - 1;
  }
  const n = lo;
  return { text: withLedger(body, missing.slice(0, n)), kept, appended: n, dropped: missing.length - n };
}

const encoder = new TextEncoder();

function byteLength(text: string): number {
  return encoder.encode(text).length;
}

// The share of summary_max_tokens the summarizer leaves to the ledger when there are identifiers
// to track: a summarizer fills the length it is given, and the ledger lives within the same limit.
const RESERVE_SHARE = 0.25;

/** Tokens the summarizer should leave free for the ledger: what the candidates take, at most a quarter. */
export function ledgerReserve(candidates: readonly LedgerEntry[], summaryMaxTokens: number, countText: (text: string) => number): number {
  const cap = Math.floor(summaryMaxTokens * RESERVE_SHARE);
  if (candidates.length === 0 || cap === 0) return 0;
  let tokens = countText(`\n\n${LEDGER_HEADING}`);
  const lines = new Set<Provenance>();
  for (const entry of candidates) {
    if (tokens >= cap) return cap;
    tokens += entryTokens(entry, !lines.has(entry.from), countText);
    lines.add(entry.from);
  }
  return Math.min(tokens, cap);
}

export interface SummaryLedgerInput {
  candidates: readonly LedgerEntry[];
  /** The summary carried over, or null. */
  previous: string | null;
  /** The summarizer's reply. */
  text: string;
  summaryMaxTokens: number;
  /** Tokens of the evicted messages. */
  evictedTokens: number;
  countText: (text: string) => number;
}

/**
 * The ledger on an LLM summary: within summary_max_tokens, and never so long that the summary is
 * no smaller than what it replaces (validate-summary.ts would then refuse it and degrade).
 */
export function ledgerForSummarySteps(p: SummaryLedgerInput): Steps<LedgerResult> {
  const replaced = p.evictedTokens + (p.previous ? p.countText(p.previous) : 0);
  const maxTokens = Math.min(p.summaryMaxTokens, replaced - FRAMING_ALLOWANCE);
  return applyLedgerSteps({ candidates: p.candidates, text: p.text, maxTokens, countText: p.countText });
}
