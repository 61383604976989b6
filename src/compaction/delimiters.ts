// recap wraps text it did not write (a transcript, a previous summary, a summary the model wrote
// from user text) in tags, and tells the model that what is inside is data. That holds only if the
// text cannot end the block early, open another one or pose as recap's summary marker, so any
// look-alike of those (any case, any spacing) is escaped the way HTML would: `<` → `&lt;`,
// `[` → `&#91;`. Escaping twice changes nothing, so text can pass through several blocks.

const TAGS = ['recap_summary', 'previous_summary', 'transcript'] as const;
const TAG_LOOKALIKE = new RegExp(`<(?=\\s*/?\\s*(?:${TAGS.join('|')})(?![A-Za-z0-9_-]))`, 'gi');
const MARKER_LOOKALIKE = /\[(?=\s*recap\s*:)/gi;

export function defuse(text: string): string {
  return text.replace(TAG_LOOKALIKE, '&lt;').replace(MARKER_LOOKALIKE, '&#91;');
}

/** `body` inside <tag attrs>…</tag>, defused so that it stays inside. */
export function wrap(tag: (typeof TAGS)[number], body: string, attrs = ''): string {
  return `<${tag}${attrs}>\n${defuse(body)}\n</${tag}>`;
}
