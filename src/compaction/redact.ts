// Secrets are redacted from everything recap sends to the summarizer (docs/design.md rule 5): a summary
// outlives the request, is stored, and goes to a model the user did not pick for that content.
// Patterns run most specific first, so a key gets its own kind. The named groups `pre` and `post`
// are kept around the redaction (a label such as `Bearer ` or `"token": "`). `[REDACTED:` is never
// matched again, so redacting twice changes nothing.

// Credential tokens are bounded by characters that cannot belong to them, so `task-…` or
// `max_tokens` never match a pattern that starts in the middle of a word.
const START = '(?<![A-Za-z0-9_-])';
const END = '(?![A-Za-z0-9_-])';

// `password=…`, `"api_key": "…"`, `DB_PASSWORD: …`, `?access_token=…&`: the label stays, the value
// goes when it looks like a credential (8+ characters; unquoted, no spaces). "the password field is
// required" has no `=`/`:` and stays; `max_tokens` is not the label `token`.
const LABEL_WORD = '(?:password|passwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key)';
const SECRET_LABEL = `(?<![A-Za-z0-9])(?:[A-Za-z0-9]+[_-])*${LABEL_WORD}`;

// `labelled`: every match starts in the run of label characters that ends at a LABEL_WORD (SECRET_LABEL).
const SECRET_PATTERNS: ReadonlyArray<{ kind: string; pattern: RegExp; labelled?: true }> = [
  {
    kind: 'private_key',
    // PEM and PGP (`… PRIVATE KEY BLOCK`). A block cut short (an abbreviated paste) still loses
    // everything after its BEGIN line, also when its newlines are JSON-escaped (`\n`).
    pattern: /-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY( BLOCK)?-----(?:[\s\S]*?-----END \1PRIVATE KEY\2-----|[A-Za-z0-9+/=\s\\]*)/g,
  },
  { kind: 'anthropic_key', pattern: new RegExp(`${START}sk-ant-[A-Za-z0-9_-]{20,}`, 'g') },
  // A digit is required so that prose like `sk-learn-is-a-great-library` stays.
  { kind: 'openai_key', pattern: new RegExp(`${START}sk-(?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9_-]{20,}`, 'g') },
  { kind: 'stripe_key', pattern: new RegExp(`${START}[spr]k_(?:live|test)_[A-Za-z0-9]{16,}`, 'g') },
  { kind: 'github_token', pattern: new RegExp(`${START}(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})`, 'g') },
  { kind: 'aws_access_key', pattern: /(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])/g },
  { kind: 'google_api_key', pattern: new RegExp(`${START}AIza[A-Za-z0-9_-]{35}${END}`, 'g') },
  { kind: 'slack_token', pattern: new RegExp(`${START}xox[abprs]-[A-Za-z0-9-]{10,}`, 'g') },
  { kind: 'gitlab_token', pattern: new RegExp(`${START}glpat-[A-Za-z0-9_-]{20,}`, 'g') },
  { kind: 'huggingface_token', pattern: new RegExp(`${START}hf_[A-Za-z0-9]{30,}`, 'g') },
  { kind: 'npm_token', pattern: new RegExp(`${START}npm_[A-Za-z0-9]{36}${END}`, 'g') },
  { kind: 'jwt', pattern: new RegExp(`${START}eyJ[A-Za-z0-9_-]{5,}\\.[A-Za-z0-9_-]{5,}\\.[A-Za-z0-9_-]{5,}`, 'g') },
  {
    kind: 'bearer',
    // "Bearer authentication" is prose: a token needs a digit or, without one, 16+ characters.
    pattern: /(?<pre>\bBearer\s+)(?!\[REDACTED)(?:(?=[A-Za-z0-9._~+/=-]*[0-9])[A-Za-z0-9._~+/=-]{8,}|[A-Za-z0-9._~+/=-]{16,})/gi,
  },
  {
    kind: 'authorization',
    // Any other scheme (`Basic …`, `Token …`), with the same digit-or-length test as Bearer.
    pattern: /(?<pre>\b(?:proxy-)?authorization["']?\s*[:=]\s*["']?(?:[A-Za-z][A-Za-z0-9-]*\s+)?)(?!\[REDACTED)(?:(?=[^\s"',;]*[0-9])[^\s"',;]{8,}|[^\s"',;]{16,})/gi,
  },
  {
    kind: 'url_credentials',
    // The password of a URL's userinfo: `postgres://app:…@db`, `https://oauth2:…@gitlab.com`.
    pattern: /(?<pre>\b[a-z][a-z0-9+.-]*:\/\/[^\s:/?#@]+:)(?!\[REDACTED)[^\s/?#@]+(?<post>@)/gi,
  },
  {
    kind: 'secret',
    // "the password is hunter2hunter2": in prose a digit tells a password from a word ("is required").
    pattern: /(?<pre>\b(?:password|passphrase|passcode)\s+(?:is|was)\s+["'`]?)(?!\[REDACTED)(?=[^\s"'`]*[0-9])[^\s"'`]{6,}/gi,
  },
  {
    kind: 'secret',
    pattern: new RegExp(`(?<pre>${SECRET_LABEL}["']?\\s*[:=]\\s*(?<q>["']))(?!\\[REDACTED)(?:(?!\\k<q>)[^\\n]){8,}(?<post>\\k<q>)`, 'gi'),
    labelled: true,
  },
  {
    kind: 'secret',
    // `&` ends a value only where a query parameter follows (`&page=2`); passwords contain it too.
    pattern: new RegExp(`(?<pre>${SECRET_LABEL}["']?\\s*[:=]\\s*)(?!\\[REDACTED)(?:[^\\s"'\`,;&<>]|&(?![A-Za-z0-9_.-]+=)){8,}`, 'gi'),
    labelled: true,
  },
];

type Kept = { pre?: string; post?: string };

function redaction(kind: string, groups: Kept | undefined): string {
  return `${groups?.pre ?? ''}[REDACTED:${kind}]${groups?.post ?? ''}`;
}

export function redact(text: string): string {
  let out = text;
  for (const { kind, pattern } of SECRET_PATTERNS) {
    out = out.replace(pattern, (...args: unknown[]) => {
      // With named groups the replacer's last argument is the groups object, else the input string.
      const last = args.at(-1);
      return redaction(kind, typeof last === 'object' && last !== null ? (last as Kept) : undefined);
    });
  }
  return out;
}

/**
 * redact(text) with `pause` between one match and the next: for a text no piece can be cut from
 * (a line of megabytes: minified JSON, a one-line log), which redact() held the event loop for
 * ~20 ms a MB. The same result: each pattern, in order, replaces the matches that replace() finds
 * (the leftmost at or after the end of the one before) in the text as the patterns before left it.
 */
export async function redactStepwise(text: string, pause: () => Promise<void> | undefined): Promise<string> {
  let out = text;
  for (const { kind, pattern, labelled } of SECRET_PATTERNS) {
    // Copies of its own: redact() on another request, run while this one waits, resets the shared one's lastIndex.
    const next = labelled ? labelledMatches(pattern, out, pause) : plainMatches(pattern, out);
    const parts: string[] = [];
    let kept = 0;
    for (let m = await next(0); m !== null; ) {
      parts.push(out.slice(kept, m.index), redaction(kind, m.groups));
      kept = m.index + m[0].length;
      const due = pause();
      if (due) await due;
      m = await next(m[0] === '' ? kept + 1 : kept);
    }
    if (parts.length > 0) {
      parts.push(out.slice(kept));
      out = parts.join('');
    }
    const due = pause();
    if (due) await due;
  }
  return out;
}

type NextMatch = (from: number) => Promise<RegExpExecArray | null> | RegExpExecArray | null;

function plainMatches(pattern: RegExp, text: string): NextMatch {
  const own = new RegExp(pattern.source, pattern.flags);
  return (from) => {
    own.lastIndex = from;
    return own.exec(text);
  };
}

// The two label patterns scan a line of megabytes 5× slower than the others (at every position,
// the run of letters before it). Only where a label word is found are they tried, at each place
// in the run of label characters before the word, in order: no match starts anywhere else.
const LABEL_CHAR = /[A-Za-z0-9_-]/;
const WORDS_PER_PAUSE = 4096;

function labelledMatches(pattern: RegExp, text: string, pause: () => Promise<void> | undefined): NextMatch {
  const at = new RegExp(pattern.source, `${pattern.flags.replace('g', '')}y`);
  const words = new RegExp(LABEL_WORD, 'gi');
  return async (from) => {
    let tried = from;
    let seen = 0;
    words.lastIndex = from;
    for (let w = words.exec(text); w !== null; w = words.exec(text)) {
      let start = w.index;
      while (start > tried && LABEL_CHAR.test(text[start - 1]!)) start--;
      for (let p = Math.max(start, tried); p <= w.index; p++) {
        at.lastIndex = p;
        const m = at.exec(text);
        if (m) return m;
      }
      tried = w.index + 1;
      words.lastIndex = tried;
      if (++seen % WORDS_PER_PAUSE === 0) {
        const due = pause();
        if (due) await due;
      }
    }
    return null;
  };
}

// Redacting megabytes at once holds the event loop (~30 ms per MB), so a long text is redacted
// in pieces with a pause between them. A piece ends just after a newline that no pattern can
// match across: the patterns that span whitespace do so only right after a label (`Bearer`,
// `password:`, `Authorization: Basic`, `the password is`), so a line that ends with one does not
// end a piece; nor does a line inside a private key block (from its BEGIN line to its END line).
// Pieces so cut redact exactly as the whole text does (redact.test.ts checks it on generated texts).
const PIECE_CHARS = 64 * 1024;
// A piece this many times longer found no safe newline soon enough: it is redacted match by match.
const LONG_PIECE_FACTOR = 4;
const CONTINUED_BY_NEXT_LINE =
  /(?:bearer|password|passwd|passphrase|passcode|secret|token|key|authorization|is|was)["'`]?\s*(?:[:=]\s*["'`]?\s*(?:[A-Za-z][A-Za-z0-9-]*\s*)?)?$|\s$/i;
const LINE_TAIL_CHARS = 160;
const KEY_BEGIN = /-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY( BLOCK)?-----/g;
// What the private_key pattern takes after a BEGIN line that has no END line.
const KEY_BODY = /[A-Za-z0-9+/=\s\\]*/y;

/** Whether the private_key pattern's match of the BEGIN line `begin` ends before `cut`. */
function keyBlockEndsBefore(text: string, begin: RegExpExecArray, cut: number): boolean {
  const end = `-----END ${begin[1]}PRIVATE KEY${begin[2] ?? ''}-----`;
  const at = text.indexOf(end, begin.index + begin[0].length);
  if (at !== -1) return at + end.length <= cut;
  KEY_BODY.lastIndex = begin.index + begin[0].length;
  KEY_BODY.exec(text);
  return KEY_BODY.lastIndex < cut;
}

/** Whether a piece may end at `cut` (just after a newline), given the piece started at `start`. */
function isSafeEnd(text: string, start: number, cut: number): boolean {
  // A CRLF line ends before its \r: the pair is the line break, as a \n alone is (else every line
  // of a CRLF text ended in whitespace, and a 10 MB log was redacted in one piece, ~240 ms).
  const lineEnd = cut - 2 >= start && text.charCodeAt(cut - 2) === 13 ? cut - 2 : cut - 1;
  if (CONTINUED_BY_NEXT_LINE.test(text.slice(Math.max(start, lineEnd - LINE_TAIL_CHARS), lineEnd))) return false;
  KEY_BEGIN.lastIndex = start;
  for (let m = KEY_BEGIN.exec(text); m !== null && m.index < cut; m = KEY_BEGIN.exec(text)) {
    if (!keyBlockEndsBefore(text, m, cut)) return false;
  }
  return true;
}

/** Where the piece that starts at `start` ends: at a safe newline past `start + pieceChars`, else the text's end. */
function pieceEnd(text: string, start: number, pieceChars: number): number {
  let nl = text.indexOf('\n', start + pieceChars);
  while (nl !== -1 && !isSafeEnd(text, start, nl + 1)) nl = text.indexOf('\n', nl + 1);
  return nl === -1 ? text.length : nl + 1;
}

/**
 * redact(text) as the pieces it was redacted in, with `pause` between them: joined, the same result.
 * Every piece but the last ends in a newline that no match spans nor takes, not preceded by a
 * \r of a CRLF of another piece: a line break is whole in one piece.
 */
export async function redactPieces(text: string, pause: () => Promise<void> | undefined, pieceChars = PIECE_CHARS): Promise<string[]> {
  if (text.length <= pieceChars) return [redact(text)];
  const out: string[] = [];
  for (let start = 0; start < text.length; ) {
    const end = pieceEnd(text, start, pieceChars);
    const piece = text.slice(start, end);
    out.push(end - start > LONG_PIECE_FACTOR * pieceChars ? await redactStepwise(piece, pause) : redact(piece));
    start = end;
    await pause();
  }
  return out;
}

/** redact(text), in pieces with `pause` between them; the same result. */
export async function redactSliced(text: string, pause: () => Promise<void> | undefined, pieceChars = PIECE_CHARS): Promise<string> {
  return (await redactPieces(text, pause, pieceChars)).join('');
}
