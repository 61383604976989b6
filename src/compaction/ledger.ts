import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ChatMessage } from '../messages/types.js';
import { runSync, type Steps } from '../slicing/slicer.js';
import { identifiersIn, mentions } from './identifiers.js';
import { redact } from './redact.js';
import { contentText, headChars, tailChars } from './text.js';
import { boundedCallText } from './tool-calls.js';
import { FRAMING_ALLOWANCE } from './validate-summary.js';

// The identifier ledger (DESIGN rule 5). A summarizer drops or paraphrases identifiers, and each
// carry-over loses more; after a few generations the ticket number of turn 3 is gone. recap
// extracts the identifiers of the evicted messages and of the previous summary itself, and those
// the new summary lacks are appended verbatim in a ledger section at its end, newest first. The
// section is recognised again on the next carry-over, so an identifier survives any number of
// generations until the size limit pushes it out (the oldest go first). Everything is extracted
// from redacted text: a secret that redaction removed is never put back.

export const LEDGER_HEADING = '## Identifiers from earlier turns (kept verbatim by recap, newest first)';
const ENTRY = '- ';
// A huge message (a pasted log, a file dump) is scanned at its head and tail only, which bounds
// the work; its middle rarely holds what the conversation refers to later.
const SCAN_HEAD_CHARS = 48_000;
const SCAN_TAIL_CHARS = 16_000;
// Each looks through the whole summary text: a thousand take about a millisecond.
const CANDIDATES_PER_STEP = 1024;

export interface LedgerInput {
  /** What the summary should carry, newest first (ledgerCandidates). */
  candidates: readonly string[];
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
  /** Identifiers missing from the summary that the size limit left out (the oldest). */
  dropped: number;
}

export interface LedgerResult extends LedgerCounts {
  text: string;
}

/** A summary text split into its body and the entries of its ledger section(s). */
export function splitLedger(text: string): { body: string; entries: string[] } {
  const lines = text.split('\n');
  const body: string[] = [];
  const entries: string[] = [];
  let inLedger = false;
  for (const line of lines) {
    if (line.trim() === LEDGER_HEADING) {
      inLedger = true;
      continue;
    }
    // A summarizer that copied the section may have written more sections after it.
    if (inLedger && line.startsWith('#')) inLedger = false;
    if (!inLedger) body.push(line);
    else if (line.startsWith(ENTRY) && line.length > ENTRY.length) entries.push(line.slice(ENTRY.length).trim());
  }
  return { body: body.join('\n').trim(), entries };
}

/**
 * The identifiers a new summary should carry, newest first: the evicted messages from the last
 * back, then the previous summary's ledger (already newest first), then the previous summary's
 * text. An identifier mentioned again later counts at its newest place.
 */
export function ledgerCandidates(evicted: readonly ChatMessage[], previous: string | null): string[] {
  const ordered: string[] = [];
  for (let i = evicted.length - 1; i >= 0; i--) ordered.push(...identifiersIn(scannedText(evicted[i]!)));
  return withPrevious(ordered, previous);
}

/**
 * The same, giving the event loop back every few milliseconds: a long span (tens of thousands of
 * tokens) takes tens of milliseconds to scan, which other requests must not wait for.
 */
export async function collectLedgerCandidates(evicted: readonly ChatMessage[], previous: string | null, sliceMs = 4): Promise<string[]> {
  const ordered: string[] = [];
  let since = performance.now();
  for (let i = evicted.length - 1; i >= 0; i--) {
    ordered.push(...identifiersIn(scannedText(evicted[i]!)));
    if (performance.now() - since > sliceMs) {
      await nextTurn();
      since = performance.now();
    }
  }
  return withPrevious(ordered, previous);
}

function withPrevious(ordered: string[], previous: string | null): string[] {
  if (previous) {
    const { body, entries } = splitLedger(redact(previous));
    ordered.push(...entries.map(redact), ...identifiersIn(body));
  }
  return [...new Set(ordered)].filter((id) => id !== '' && !id.includes('\n'));
}

/** The message's text and tool-call arguments, redacted, bounded for huge messages. */
function scannedText(m: ChatMessage): string {
  const text = boundedCallText(m, contentText(m.content), SCAN_HEAD_CHARS, SCAN_TAIL_CHARS);
  const bounded = text.length <= SCAN_HEAD_CHARS + SCAN_TAIL_CHARS ? text : `${headChars(text, SCAN_HEAD_CHARS)}\n${tailChars(text, SCAN_TAIL_CHARS)}`;
  return redact(bounded);
}

/** The new summary text with a ledger of the candidates it lacks, within `maxTokens` (and `maxBytes`). */
export function applyLedger(input: LedgerInput): LedgerResult {
  return runSync(applyLedgerSteps(input));
}

/** applyLedger in steps: an agent's long span has 100k candidates to look for in the summary. */
export function* applyLedgerSteps(input: LedgerInput): Steps<LedgerResult> {
  const { body } = splitLedger(input.text);
  const { candidates } = input;
  const missing: string[] = [];
  for (const [i, id] of candidates.entries()) {
    if (!mentions(body, id)) missing.push(id);
    if (i % CANDIDATES_PER_STEP === CANDIDATES_PER_STEP - 1) yield;
  }
  const kept = candidates.length - missing.length;
  const maxBytes = input.maxBytes ?? Infinity;
  const within = (text: string) => byteLength(text) <= maxBytes && (input.maxTokens === Infinity || input.countText(text) <= input.maxTokens);
  if (missing.length === 0 || !within(withLedger(body, missing.slice(0, 1)))) {
    return { text: body, kept, appended: 0, dropped: missing.length };
  }
  // More entries never take fewer tokens or bytes, so the most that fit are found by bisection.
  // Bytes add up exactly and every entry costs at least a token, which bounds the search.
  const byteRoom = maxBytes - byteLength(withLedger(body, []));
  let lo = 1;
  let hi = Math.min(missing.length, input.maxTokens);
  for (let i = 0, bytes = -1; i < hi; i++) {
    bytes += byteLength(`${ENTRY}${missing[i]}\n`);
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
export function ledgerReserve(candidates: readonly string[], summaryMaxTokens: number, countText: (text: string) => number): number {
  const cap = Math.floor(summaryMaxTokens * RESERVE_SHARE);
  if (candidates.length === 0 || cap === 0) return 0;
  let tokens = countText(`\n\n${LEDGER_HEADING}\n`);
  for (const id of candidates) {
    if (tokens >= cap) return cap;
    tokens += countText(`${ENTRY}${id}\n`);
  }
  return Math.min(tokens, cap);
}

export interface SummaryLedgerInput {
  candidates: readonly string[];
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

function withLedger(body: string, entries: readonly string[]): string {
  return `${body}\n\n${LEDGER_HEADING}\n${entries.map((id) => `${ENTRY}${id}`).join('\n')}`;
}
