// The pre-token patterns of o200k_base and cl100k_base, hand-compiled for ASCII text: where each
// piece the pattern would match ends, found with a table lookup per character instead of the
// regular expression's Unicode classes: twice as fast on what agents send (JSON, code, logs and
// listings are nearly all ASCII). A text with any other character goes to the regular expression
// (pretoken-count.ts); the pieces are the regular expression's, alternative by alternative
// (ascii-pretokens.test.ts compares them on generated text and on every text of two characters).

/** The end of the piece that starts at `pos` in an all-ASCII `text` (pos < text.length). */
export type PieceEnd = (text: string, pos: number) => number;

const LOWER = 1;
const UPPER = 2;
const DIGIT = 4;
/** JavaScript's `\s` in ASCII: tab, line feed, vertical tab, form feed, carriage return, space. */
const SPACE = 8;
/** `\r` and `\n`. */
const NEWLINE = 16;
/** Past the end of the text: no class. */
const END = 32;
const LETTER = LOWER | UPPER;

const CLASSES = (() => {
  const table = new Uint8Array(128);
  for (let c = 0x61; c <= 0x7a; c++) table[c] = LOWER;
  for (let c = 0x41; c <= 0x5a; c++) table[c] = UPPER;
  for (let c = 0x30; c <= 0x39; c++) table[c] = DIGIT;
  for (const c of [0x09, 0x0b, 0x0c, 0x20]) table[c] = SPACE;
  table[0x0a] = SPACE | NEWLINE;
  table[0x0d] = SPACE | NEWLINE;
  return table;
})();

const APOSTROPHE = 0x27;
const BLANK = 0x20;
const SLASH = 0x2f;

const classAt = (text: string, i: number): number => (i < text.length ? CLASSES[text.charCodeAt(i)]! : END);
/** `[^\r\n\p{L}\p{N}]`: what may come before a word. */
const beforeWord = (cls: number): boolean => (cls & (LETTER | DIGIT | NEWLINE)) === 0;
/** `[^\s\p{L}\p{N}]`: punctuation and control characters. */
const isPunct = (cls: number): boolean => (cls & (LETTER | DIGIT | SPACE | END)) === 0;

/** `'s|'S|'t|'T|'re|'rE|'Re|'RE|'ve|…|'d|'D` at `i`: where it ends, or `i` when none is there. */
function contractionEnd(text: string, i: number): number {
  if (text.charCodeAt(i) !== APOSTROPHE) return i;
  const c = text.charCodeAt(i + 1) | 0x20;
  if (c === 0x73 || c === 0x74 || c === 0x6d || c === 0x64) return i + 2; // s t m d
  const e = text.charCodeAt(i + 2) | 0x20;
  if ((c === 0x72 || c === 0x76) && e === 0x65) return i + 3; // re ve
  if (c === 0x6c && e === 0x6c) return i + 3; // ll
  return i;
}

function whileClass(text: string, i: number, cls: number): number {
  while (i < text.length && (CLASSES[text.charCodeAt(i)]! & cls) !== 0) i++;
  return i;
}

/** `\p{N}{1,3}`. */
function digitsEnd(text: string, pos: number): number {
  let i = pos + 1;
  while (i < pos + 3 && classAt(text, i) === DIGIT) i++;
  return i;
}

/** ` ?[^\s\p{L}\p{N}]+` then `[\r\n]*` (or `[\r\n/]*`): the end, or -1 when it does not match at `pos`. */
function punctEnd(text: string, pos: number, slashes: boolean): number {
  let i = pos;
  if (text.charCodeAt(i) === BLANK && isPunct(classAt(text, i + 1))) i++;
  if (!isPunct(classAt(text, i))) return -1;
  while (isPunct(classAt(text, i))) i++;
  for (let c = text.charCodeAt(i); c === 0x0a || c === 0x0d || (slashes && c === SLASH); c = text.charCodeAt(++i));
  return i;
}

/** `\s*[\r\n]+|\s+(?!\S)|\s+` at `pos`, where a whitespace character is. */
function spaceEnd(text: string, pos: number): number {
  const end = whileClass(text, pos, SPACE);
  for (let i = end - 1; i >= pos; i--) if ((CLASSES[text.charCodeAt(i)]! & NEWLINE) !== 0) return i + 1;
  return end === text.length || end - pos < 2 ? end : end - 1;
}

/** `[^\r\n\p{L}\p{N}]?`: where a word's letters start, when one starts at `pos`, else -1. */
function wordStart(text: string, pos: number): number {
  const cls = classAt(text, pos);
  if ((cls & LETTER) !== 0) return pos;
  return beforeWord(cls) && (classAt(text, pos + 1) & LETTER) !== 0 ? pos + 1 : -1;
}

/** o200k_base: words split where lower case turns to upper case, contractions kept on the word, `/` after punctuation. */
const o200kPieceEnd: PieceEnd = (text, pos) => {
  const start = wordStart(text, pos);
  // [A-Z]*[a-z]+ or [A-Z]+[a-z]*: an upper-case run, then a lower-case one, at least one of the two.
  if (start !== -1) return contractionEnd(text, whileClass(text, whileClass(text, start, UPPER), LOWER));
  const cls = classAt(text, pos);
  if (cls === DIGIT) return digitsEnd(text, pos);
  const punct = punctEnd(text, pos, true);
  return punct !== -1 ? punct : spaceEnd(text, pos);
};

/** cl100k_base: a contraction first, then words of letters of either case. */
const cl100kPieceEnd: PieceEnd = (text, pos) => {
  const contraction = contractionEnd(text, pos);
  if (contraction !== pos) return contraction;
  const start = wordStart(text, pos);
  if (start !== -1) return whileClass(text, start, LETTER);
  const cls = classAt(text, pos);
  if (cls === DIGIT) return digitsEnd(text, pos);
  const punct = punctEnd(text, pos, false);
  return punct !== -1 ? punct : spaceEnd(text, pos);
};

// js-tiktoken's patterns as it ships them: any other (a changed one, another encoding's) is left
// to the regular expression.
const O200K_PATTERN =
  "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+('s|'S|'t|'T|'re|'rE|'Re|'RE|'ve|'vE|'Ve|'VE|'m|'M|'ll|'lL|'Ll|'LL|'d|'D)?|" +
  "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*('s|'S|'t|'T|'re|'rE|'Re|'RE|'ve|'vE|'Ve|'VE|'m|'M|'ll|'lL|'Ll|'LL|'d|'D)?|" +
  '\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+';
const CL100K_PATTERN =
  "('s|'S|'t|'T|'re|'rE|'Re|'RE|'ve|'vE|'Ve|'VE|'m|'M|'ll|'lL|'Ll|'LL|'d|'D)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

/** The hand-compiled form of a pre-token pattern, when it is one of the two above. */
export function asciiPieceEnd(pattern: string): PieceEnd | undefined {
  if (pattern === O200K_PATTERN) return o200kPieceEnd;
  if (pattern === CL100K_PATTERN) return cl100kPieceEnd;
  return undefined;
}
