// The ledger's section inside a summary (docs/design.md rule 5): a heading recap recognises, then one line
// per provenance, saying in a word where its identifiers came from, then the identifiers, best
// first: `- call: src/app/main.ts, src/app/db.ts`. (A word per line costs far less of the summary's
// size than a word per identifier: about a quarter more identifiers fit.) The section is read back
// on the next carry-over, each identifier with its provenance, so the ranking holds over any
// number of generations. Sections written before identifiers carried provenance (their own
// heading, one bare identifier per line) are read too: theirs come back as `earlier`.

/** Where an identifier was read, in the order the ledger ranks them (ledger-candidates.ts). */
export const PROVENANCES = ['task', 'user', 'system', 'developer', 'call', 'assistant', 'summary', 'earlier', 'other', 'tool'] as const;
export type Provenance = (typeof PROVENANCES)[number];

export interface LedgerEntry {
  id: string;
  from: Provenance;
}

export const LEDGER_HEADING = '## Identifiers from earlier turns (kept verbatim by recap, by where they came from)';
const HEADINGS = new Set([LEDGER_HEADING, '## Identifiers from earlier turns (kept verbatim by recap, newest first)']);
const ENTRY = '- ';
/** Between the identifiers of one line; an identifier holding it (a code span) is never carried. */
export const SEPARATOR = ', ';
const WITH_PROVENANCE = new RegExp(`^(${PROVENANCES.join('|')}): (.+)$`);

function parseLine(text: string): LedgerEntry[] {
  const m = WITH_PROVENANCE.exec(text);
  if (!m) return [{ from: 'earlier', id: text }];
  const from = m[1] as Provenance;
  return m[2]!
    .split(SEPARATOR)
    .map((id) => id.trim())
    .filter((id) => id !== '')
    .map((id) => ({ from, id }));
}

/** The section's lines for `entries` (best first): one per provenance, in the order each first appears. */
function ledgerLines(entries: readonly LedgerEntry[]): string[] {
  const groups = new Map<Provenance, string[]>();
  for (const e of entries) {
    const ids = groups.get(e.from);
    if (ids) ids.push(e.id);
    else groups.set(e.from, [e.id]);
  }
  return [...groups].map(([from, ids]) => `${ENTRY}${from}: ${ids.join(SEPARATOR)}`);
}

/** A summary text split into its body and the entries of its ledger section(s). */
export function splitLedger(text: string): { body: string; entries: LedgerEntry[] } {
  const body: string[] = [];
  const entries: LedgerEntry[] = [];
  let inLedger = false;
  for (const line of text.split('\n')) {
    if (HEADINGS.has(line.trim())) {
      inLedger = true;
      continue;
    }
    // A summarizer that copied the section may have written more sections after it.
    if (inLedger && line.startsWith('#')) inLedger = false;
    if (!inLedger) body.push(line);
    else if (line.startsWith(ENTRY) && line.length > ENTRY.length) entries.push(...parseLine(line.slice(ENTRY.length).trim()));
  }
  return { body: body.join('\n').trim(), entries };
}

/** The body with a ledger section of `entries` at its end. */
export function withLedger(body: string, entries: readonly LedgerEntry[]): string {
  return `${body}\n\n${LEDGER_HEADING}\n${ledgerLines(entries).join('\n')}`;
}

/** The fewest bytes an entry adds to a section (its identifier and a separator): a bound for sizing. */
export function entryMinBytes(e: LedgerEntry): number {
  return Buffer.byteLength(e.id) + SEPARATOR.length;
}

/** About the tokens an entry adds to a section, its line's word counted with its first entry. */
export function entryTokens(e: LedgerEntry, firstOfLine: boolean, countText: (text: string) => number): number {
  return countText(firstOfLine ? `\n${ENTRY}${e.from}: ${e.id}` : `${SEPARATOR}${e.id}`);
}
