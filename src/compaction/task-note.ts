// The opening task stays verbatim in every view unless it alone is over its share of the budget
// (rule 1); then it is summarized like the rest, and the summary says so in a line of recap's own
// at its top. The line is recognised on the next carry-over and put back if the summarizer
// dropped it, so that every later summary still says it.

// Not in brackets: the summary's framing escapes anything that looks like recap's own marker.
const NOTE_START = 'Note by recap: the opening task';

/** The note for an opening task of `tokens` tokens that a summary takes in. */
export function taskNote(tokens: number): string {
  return `${NOTE_START} (the conversation's first user message, ${tokens} tokens) is not kept verbatim; it is summarized here.`;
}

/** The note line a summary text carries, or null. */
export function taskNoteOf(text: string | null): string | null {
  if (!text) return null;
  for (const line of text.split('\n')) if (line.startsWith(NOTE_START)) return line;
  return null;
}

/** The text without its note line(s). */
export function withoutTaskNote(text: string): string {
  if (!text.includes(NOTE_START)) return text;
  return text
    .split('\n')
    .filter((line) => !line.startsWith(NOTE_START))
    .join('\n')
    .trim();
}

/** The text with `note` as its first line (and no other note), or unchanged when `note` is null. */
export function withTaskNote(text: string, note: string | null): string {
  return note === null ? text : `${note}\n\n${withoutTaskNote(text)}`;
}
