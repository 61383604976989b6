// The ledger's section inside a summary (DESIGN rule 5): a heading recap recognises, then one entry
// per identifier saying in a word where it came from, `- call: src/app/main.ts`. The section is
// read back on the next carry-over, each entry with its provenance, so the ranking holds over any
// number of generations. Sections written before entries carried provenance (their own heading,
// bare entries) are read too: their entries come back as `earlier`.

/** Where an identifier was read, in the order the ledger ranks them (ledger-candidates.ts). */
export const PROVENANCES = ['task', 'user', 'system', 'developer', 'call', 'assistant', 'summary', 'earlier', 'other', 'tool'] as const;
export type Provenance = (typeof PROVENANCES)[number];

export interface LedgerEntry {
  id: string;
  from: Provenance;
}

export const LEDGER_HEADING = '## Identifiers from earlier turns (kept verbatim by recap; each says where it came from)';
const HEADINGS = new Set([LEDGER_HEADING, '## Identifiers from earlier turns (kept verbatim by recap, newest first)']);
const ENTRY = '- ';
const WITH_PROVENANCE = new RegExp(`^(${PROVENANCES.join('|')}): (.+)$`);

/** One entry's line. */
export function entryLine(e: LedgerEntry): string {
  return `${ENTRY}${e.from}: ${e.id}`;
}

function parseEntry(text: string): LedgerEntry {
  const m = WITH_PROVENANCE.exec(text);
  return m ? { from: m[1] as Provenance, id: m[2]!.trim() } : { from: 'earlier', id: text };
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
    else if (line.startsWith(ENTRY) && line.length > ENTRY.length) entries.push(parseEntry(line.slice(ENTRY.length).trim()));
  }
  return { body: body.join('\n').trim(), entries };
}

/** The body with a ledger section of `entries` at its end. */
export function withLedger(body: string, entries: readonly LedgerEntry[]): string {
  return `${body}\n\n${LEDGER_HEADING}\n${entries.map(entryLine).join('\n')}`;
}
