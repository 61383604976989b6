// The identifiers of a text that a summary must not lose (docs/design.md rule 5): ticket-style ids, file
// paths, URLs, hashes, quoted code names, numbers with units, error codes, versions, addresses.
// Summarizers paraphrase them ("the ticket", "a config file") or mangle their digits; recap's
// ledger (ledger.ts) carries the ones a summary lacks, verbatim. Patterns are deterministic and
// linear (no nested quantifiers), and one combined expression scans a text once: at any position
// the first alternative that matches wins, so the most specific forms come first.

const WORD_START = '(?<![\\w.@/-])';

const ALTERNATIVES: readonly string[] = [
  // URLs of any scheme: https://…, postgres://…, s3://…
  String.raw`\b[a-z][a-z0-9+.-]{1,15}://[^\s<>"'\x60]+`,
  String.raw`\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+`,
  // Windows, absolute, home-relative and dot-relative paths.
  String.raw`\b[A-Za-z]:\\[^\s"'<>|*?]+`,
  `${WORD_START}(?:~|\\.{1,2})?/[\\w.@+-]+(?:/[\\w.@+-]+)*/?`,
  // Relative paths: a file with an extension in a folder, or three segments or more.
  `${WORD_START}[\\w.@+-]+(?:/[\\w.@+-]+)*/[\\w@+-][\\w.@+-]*\\.[A-Za-z0-9]{1,10}\\b`,
  `${WORD_START}[\\w.@+-]+(?:/[\\w.@+-]+){2,}`,
  // Dates and times, IPv4 addresses (with a port), versions.
  String.raw`\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?)?\b`,
  String.raw`\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?\b`,
  String.raw`\bv?\d+\.\d+\.\d+(?:[-+][\w.]+)?\b|\bv\d+(?:\.\d+)+\b`,
  String.raw`\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b`,
  // Ticket-style and prefixed ids with a digit: ABC-123, CVE-2024-3094, cus_9f8a7b, us-east-1.
  String.raw`\b[A-Z][A-Z0-9]{1,11}-\d+(?:-\d+)*\b`,
  String.raw`\b[A-Za-z][A-Za-z0-9]*(?:[_-][A-Za-z0-9]+)+\b(?<=\d[A-Za-z0-9]*)`,
  String.raw`\b[A-Za-z][A-Za-z0-9]*(?:[_-][A-Za-z0-9]+)*[_-]\d[A-Za-z0-9]*\b`,
  // Dotted names: config.yaml, api.example.com, client.chat.completions.create.
  String.raw`\b[\w-]{2,}(?:\.[\w-]+)*\.[A-Za-z][\w-]+\b`,
  // Hashes (hex with a letter and a digit), hex codes, errno names, CONSTANT_CASE codes, TS2345.
  String.raw`\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,64}\b`,
  String.raw`\b0x[0-9A-Fa-f]{4,}\b`,
  String.raw`\bE(?:CONN[A-Z]+|NOENT|ACCES|ADDRINUSE|ADDRNOTAVAIL|TIMEDOUT|PIPE|PERM|EXIST|NOTFOUND|HOSTUNREACH|NETUNREACH|MFILE|ISDIR|NOTDIR|NOTEMPTY|BUSY|AGAIN|INVAL|NOSPC|ROFS|CANCELED|AI_AGAIN)\b`,
  String.raw`\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b`,
  String.raw`\b[A-Z]{1,5}\d{3,6}\b`,
  // Codes of capitals and digits without a separator (a confirmation code K7QX2MPA, a booking
  // reference 9ZK4QW): at least six characters, two capitals and a digit, so that no word of
  // prose (capitalized, or shouted in capitals) and no plain number is taken for one.
  String.raw`\b(?=[A-Z0-9]*\d)(?=[0-9]*[A-Z][0-9]*[A-Z])[A-Z0-9]{6,24}\b`,
  // HTTP status and error numbers named as such: "HTTP 503", "status: 429", "error 1045".
  String.raw`(?<=\b(?:HTTP|[Ss]tatus|[Ee]rror|[Cc]ode)[ :=#]{1,3})\d{3,6}\b`,
  // Amounts and numbers with units: $4,500, 250 EUR, 1.5 GB, 30s, 99.9%.
  String.raw`[$€£¥]\d[\d,]*(?:\.\d+)?(?:\s?[kKmMbB]\b)?`,
  String.raw`\b\d[\d,]*(?:\.\d+)?\s?(?:%|(?:ms|µs|us|ns|s|sec|secs|seconds?|mins?|minutes?|h|hrs?|hours?|days?|weeks?|months?|years?|[kKMGTP]i?B|[kKMGTP]b|bytes?|px|rpm|rps|qps|req/s|tokens|USD|EUR|GBP|JPY|CHF|CPUs?|cores?|vCPUs?|replicas|pods|nodes)(?![\w/]))`,
  // Issue references and long plain numbers (order numbers, ports, invoice numbers).
  String.raw`#\d{2,}\b`,
  String.raw`\b\d{4,}\b`,
];

const IDENTIFIER = new RegExp(ALTERNATIVES.join('|'), 'g');
// Most of a text is prose, in which no identifier starts, and trying two dozen alternatives at every
// position costs (~7 MB/s). The expression only runs on windows around the words that could hold
// an identifier (a digit, a path or code character, a run of capitals, a dot before a letter), each
// word with its neighbours, for units ("3 replicas") and names ("HTTP 503").
const MAYBE = /[0-9/\\@_$€£¥#%`]|[A-Z]{2}|\.[A-Za-z]/;
const WORD = /\S+/g;
// Inline code in backticks: a code name or a short command, kept whole.
const CODE_SPAN = /`([^`\n]{2,64})`/g;

const MIN_LENGTH = 3;
const MAX_LENGTH = 200;
const TRAILING = /[.,;:!?'"]+$/;

/** Identifiers in `text`, each once, in order of first appearance. Run it on redacted text. */
export function identifiersIn(text: string): string[] {
  const found: { at: number; value: string }[] = [];
  for (const [start, end] of windows(text)) {
    for (const m of text.slice(start, end).matchAll(IDENTIFIER)) found.push({ at: start + m.index, value: trimmed(m[0]) });
  }
  for (const m of text.matchAll(CODE_SPAN)) {
    const code = m[1]!.trim();
    // A span that is itself an identifier was found above; prose in backticks is not a name.
    if (code.split(/\s+/).length <= 4) found.push({ at: m.index, value: code });
  }
  found.sort((a, b) => a.at - b.at);
  const seen = new Set<string>();
  const out: string[] = [];
  for (const { value } of found) {
    if (value.length < MIN_LENGTH || value.length > MAX_LENGTH || seen.has(value) || isRedactionMarker(value)) continue;
    seen.add(value);
    out.push(value);
  }
  return out;
}

/** [start, end) character ranges of `text` that may hold identifiers, in order, not overlapping. */
function windows(text: string): [number, number][] {
  const words = [...text.matchAll(WORD)];
  const out: [number, number][] = [];
  words.forEach((w, i) => {
    if (!MAYBE.test(w[0])) return;
    const from = words[Math.max(0, i - 1)]!;
    const to = words[Math.min(words.length - 1, i + 1)]!;
    const start = from.index;
    const end = to.index + to[0].length;
    const last = out.at(-1);
    if (last && start <= last[1] + 1) last[1] = Math.max(last[1], end);
    else out.push([start, end]);
  });
  return out;
}

/** Trailing punctuation goes; a closing bracket stays only when the token opened it (Wikipedia URLs). */
function trimmed(token: string): string {
  let t = token.replace(TRAILING, '');
  for (const [open, close] of [
    ['(', ')'],
    ['[', ']'],
    ['{', '}'],
  ] as const) {
    while (t.endsWith(close) && count(t, close) > count(t, open)) t = t.slice(0, -1).replace(TRAILING, '');
  }
  return t;
}

function count(text: string, ch: string): number {
  let n = 0;
  for (const c of text) if (c === ch) n++;
  return n;
}

function isRedactionMarker(value: string): boolean {
  return /^\[?REDACTED/.test(value) || /^REDACTED:/.test(value);
}

/**
 * Whether `text` holds `id` as a whole token: not inside a longer identifier (`ORD-44` is not in
 * `ORD-4411`), so that the ledger does not skip an identifier the summary only seems to mention.
 */
export function mentions(text: string, id: string): boolean {
  for (let at = text.indexOf(id); at !== -1; at = text.indexOf(id, at + 1)) {
    const before = text[at - 1];
    const after = text[at + id.length];
    if (!continues(before, id[0]!) && !continues(after, id[id.length - 1]!)) return true;
  }
  return false;
}

/** A neighbour character extends the token when both it and the token's edge are word characters. */
function continues(neighbour: string | undefined, edge: string): boolean {
  if (neighbour === undefined) return false;
  const word = /[\w]/;
  return word.test(edge) && (word.test(neighbour) || (neighbour === '-' && /\d/.test(edge)));
}
