// Cutting a long text into pieces whose token counts add up to the whole text's count, so that a
// big message can be tokenized a piece at a time with the event loop free in between.
//
// BPE tokenizers first cut text into pre-tokens with a regex (cl100k_base and o200k_base use
// variants of the same one), then merge bytes within each pre-token. A cut at position p is exact
// when a pre-token ends at p in the whole text and the regex never looks across p. Two cases are
// safe for both encodings:
//
// 1. before a whitespace character other than CR/LF that follows a non-whitespace character: no
//    pre-token pattern continues a non-space run into a space or tab, and the whitespace patterns
//    (the only ones with a lookahead) start at p;
// 2. before a character that is not a letter, digit, combining mark or apostrophe, when the
//    character before it is a letter or digit: letter runs end at the first non-letter (a mark
//    would continue an o200k run, an apostrophe could start an attached contraction like "'s"),
//    digit groups end at the first non-digit, and nothing of the later text is looked at. CR/LF is
//    allowed here, unlike after punctuation, where `[\r\n]*` would swallow it.
//
// A stretch without any safe position (a long run of letters, digits or punctuation without
// spaces) is cut anyway after FORCED_CUT_AFTER pieces' worth of searching, so that neither the
// search nor one piece can hold the event loop. A forced cut can only stop merges across it, so it
// changes the count by a token or two.
const FORCED_CUT_AFTER = 2;

const LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u;
const CONTINUES_RUN = /^[\p{L}\p{N}\p{M}']$/u;
const WHITESPACE = /^\s$/u;

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** The whole character (one or two UTF-16 units) that ends right before position p. */
function charBefore(text: string, p: number): string {
  const start = p >= 2 && isLowSurrogate(text.charCodeAt(p - 1)) ? p - 2 : p - 1;
  return text.slice(start, p);
}

export function isBpeSafeCut(text: string, p: number): boolean {
  if (p <= 0 || p >= text.length || isLowSurrogate(text.charCodeAt(p))) return false;
  const next = String.fromCodePoint(text.codePointAt(p) as number);
  const prev = charBefore(text, p);
  if (WHITESPACE.test(next)) return next !== '\r' && next !== '\n' ? !WHITESPACE.test(prev) : LETTER_OR_DIGIT.test(prev);
  return LETTER_OR_DIGIT.test(prev) && !CONTINUES_RUN.test(next);
}

export type CutTest = (text: string, p: number) => boolean;

/**
 * Cuts `text` into pieces of about `pieceChars` characters (between half and once that where the
 * text allows it), only where `isCut` allows but for the forced cuts above. With the tokenizer's
 * own cut test, the pieces' token counts sum to the count of the whole text. One piece at a
 * time: finding the cuts of a long text is itself work to spread over the counting slices.
 */
export function* piecesForCounting(text: string, pieceChars: number, isCut: CutTest): Generator<string> {
  let start = 0;
  while (text.length - start > pieceChars) {
    const cut = findCut(text, start, pieceChars, isCut);
    yield text.slice(start, cut);
    start = cut;
  }
  yield text.slice(start);
}

function findCut(text: string, start: number, pieceChars: number, isCut: CutTest): number {
  const target = start + pieceChars;
  for (let p = target; p > start + pieceChars / 2; p--) if (isCut(text, p)) return p;
  const searchEnd = Math.min(text.length, start + FORCED_CUT_AFTER * pieceChars);
  for (let p = target + 1; p < searchEnd; p++) if (isCut(text, p)) return p;
  // Never between the two halves of a surrogate pair.
  return isLowSurrogate(text.charCodeAt(target)) ? target + 1 : target;
}
