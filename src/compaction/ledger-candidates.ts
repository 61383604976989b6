import type { ChatMessage } from '../messages/types.js';
import { identifiersIn } from './identifiers.js';
import { jsonValuesText } from './json-values.js';
import { type LedgerEntry, type Provenance, SEPARATOR, splitLedger } from './ledger-section.js';
import { redact } from './redact.js';
import { contentText, headChars, tailChars } from './text.js';
import { createSlicer, runSliced, runSync, type Steps } from '../slicing/slicer.js';
import { sortSteps } from '../slicing/sort-steps.js';
import { boundedCallArguments } from './tool-calls.js';

// What the ledger should carry, ranked by provenance (docs/design.md rule 5): what the task and the other
// user, system and developer messages stated first, then the arguments of tool calls (the paths
// and ids the agent acted on: the artifact trail), then assistant text (and the previous summary's
// own text), then tool outputs, which are bulky and mostly noise. Within a class an identifier
// that recurs ranks higher, then a newer one. Identifiers are read from decoded text (the values
// of JSON arguments, never their raw escapes) and from redacted text only: a secret that redaction
// removed is never put back. The previous ledger's entries keep their provenance.

const CLASS: Record<Provenance, number> = { task: 0, user: 0, system: 0, developer: 0, call: 1, assistant: 2, summary: 2, earlier: 2, other: 2, tool: 3 };
// A huge message (a pasted log, a file dump) is scanned at its head and tail only, which bounds
// the work; its middle rarely holds what the conversation refers to later.
const SCAN_HEAD_CHARS = 48_000;
const SCAN_TAIL_CHARS = 16_000;

interface Tally {
  entry: LedgerEntry;
  count: number;
  /** Index of the newest evicted message naming it; carried-over ones are older than all (negative). */
  newest: number;
}

class Tallies {
  private readonly byId = new Map<string, Tally>();

  add(id: string, from: Provenance, at: number): void {
    if (id === '' || id.includes('\n') || id.includes(SEPARATOR)) return;
    const t = this.byId.get(id);
    if (t === undefined) {
      this.byId.set(id, { entry: { id, from }, count: 1, newest: at });
      return;
    }
    t.count++;
    t.newest = Math.max(t.newest, at);
    if (CLASS[from] < CLASS[t.entry.from]) t.entry.from = from;
  }

  /** Best first; in steps: a long span has 100k+ identifiers to sort. */
  *ranked(): Steps<LedgerEntry[]> {
    const rank = (t: Tally) => CLASS[t.entry.from];
    const sorted = yield* sortSteps([...this.byId.values()], (a, b) => rank(a) - rank(b) || b.count - a.count || b.newest - a.newest);
    return sorted.map((t) => t.entry);
  }
}

function roleProvenance(role: unknown, isTask: boolean): Provenance {
  if (role === 'user') return isTask ? 'task' : 'user';
  if (role === 'system' || role === 'developer' || role === 'assistant') return role;
  if (role === 'tool' || role === 'function') return 'tool';
  return 'other';
}

function bounded(text: string): string {
  return text.length <= SCAN_HEAD_CHARS + SCAN_TAIL_CHARS ? text : `${headChars(text, SCAN_HEAD_CHARS)}\n${tailChars(text, SCAN_TAIL_CHARS)}`;
}

/** The texts of a message the ledger reads, each with where it came from: content, then the calls' arguments. */
function sourcesOf(m: ChatMessage, isTask: boolean): { text: string; from: Provenance }[] {
  const from = roleProvenance(m.role, isTask);
  const content = bounded(contentText(m.content));
  // Tools often answer in JSON: their values are read as the arguments' are.
  const sources = [{ text: redact(from === 'tool' ? jsonValuesText(content) : content), from }];
  const args = boundedCallArguments(m, SCAN_HEAD_CHARS, SCAN_TAIL_CHARS).map((a) => jsonValuesText(a));
  if (args.length > 0) sources.push({ text: redact(bounded(args.join('\n'))), from: 'call' });
  return sources;
}

function addMessage(tallies: Tallies, m: ChatMessage, at: number, isTask: boolean): void {
  for (const { text, from } of sourcesOf(m, isTask)) for (const id of identifiersIn(text)) tallies.add(id, from, at);
}

function addPrevious(tallies: Tallies, previous: string | null): void {
  if (!previous) return;
  const { body, entries } = splitLedger(redact(previous));
  // Older than every evicted message; in their previous order, which was already ranked.
  entries.forEach((e, p) => tallies.add(redact(e.id), e.from, -1 - p));
  identifiersIn(body).forEach((id, p) => tallies.add(id, 'summary', -1 - entries.length - p));
}

export interface CandidateOptions {
  /** Index in `evicted` of the conversation's opening task, when the span takes it in. */
  taskAt?: number | undefined;
}

/** The identifiers a new summary should carry, best first: the evicted messages' and the previous summary's. */
export function ledgerCandidates(evicted: readonly ChatMessage[], previous: string | null, options: CandidateOptions = {}): LedgerEntry[] {
  const tallies = new Tallies();
  evicted.forEach((m, i) => addMessage(tallies, m, i, i === options.taskAt));
  addPrevious(tallies, previous);
  return runSync(tallies.ranked());
}

/**
 * The same, giving the event loop back every few milliseconds: a long span (tens of thousands of
 * tokens) takes tens of milliseconds to scan, which other requests must not wait for.
 */
export async function collectLedgerCandidates(evicted: readonly ChatMessage[], previous: string | null, options: CandidateOptions = {}, sliceMs = 4): Promise<LedgerEntry[]> {
  const tallies = new Tallies();
  // One slicer for the scan and the ranking: a slice the scan left unused is the ranking's.
  const pause = createSlicer(sliceMs);
  for (const [i, m] of evicted.entries()) {
    addMessage(tallies, m, i, i === options.taskAt);
    const due = pause();
    if (due) await due;
  }
  addPrevious(tallies, previous);
  return runSliced(tallies.ranked(), pause);
}
