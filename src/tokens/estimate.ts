// The `estimate` encoding, for models whose tokenizer recap does not ship (Claude, Llama, Qwen ...).
// It is a chars-per-token heuristic shaped like BPE tokenizers behave:
//
// - text is cut into segments of "whitespace run + word run", like BPE pre-tokenization attaches a
//   leading space to the word after it; each segment costs at least one token (rounded up), so short
//   words cost one token each instead of a fraction;
// - within a segment: ASCII letters ~6 chars/token (common words are single tokens), digits ~3 per
//   token (BPE vocabularies split numbers into groups of up to three), ASCII punctuation ~2 per
//   token, accented Latin ~3 per token, other alphabets (Cyrillic, Greek, Arabic, Hebrew, Indic,
//   Thai ...) ~3 per token, CJK ideographs, kana and hangul ~1 token per character, emoji and
//   pictographs ~2 tokens each (cl100k needs 2-3, o200k 1-2), whitespace after the first character
//   of a run ~4 per token. On English prose that comes to ~4.5 chars per token overall.
//
// Measured on the samples in samples.case.ts (prose in six languages, code, JSON, emoji) it is
// within -23%..+19% of cl100k_base and -15%..+58% of o200k_base, whose larger vocabulary packs
// non-English text tighter (Russian is the +58%). The per-model calibration (calibration.ts)
// corrects the remaining bias once the upstream reports real `usage.prompt_tokens`.
//
// Weights are in twelfths of a token so that halves, thirds and quarters stay integers.
const UNIT = 12;
const WEIGHT = {
  asciiLetter: 2,
  digit: 4,
  asciiPunct: 6,
  extraSpace: 3,
  latinExtended: 4,
  otherAlphabet: 4,
  cjk: 12,
  emoji: 24,
  joiner: 0,
} as const;

function isWhitespace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0xa0 || c === 0x3000 || (c >= 0x2000 && c <= 0x200a);
}

function isCjk(c: number): boolean {
  return (
    (c >= 0x3040 && c <= 0x30ff) || // hiragana, katakana
    (c >= 0x3400 && c <= 0x4dbf) || // CJK extension A
    (c >= 0x4e00 && c <= 0x9fff) || // CJK unified ideographs
    (c >= 0xac00 && c <= 0xd7af) || // hangul syllables
    (c >= 0x1100 && c <= 0x11ff) || // hangul jamo
    (c >= 0x3001 && c <= 0x303f) || // CJK punctuation
    (c >= 0x3130 && c <= 0x318f) || // hangul compatibility jamo
    (c >= 0xf900 && c <= 0xfaff) || // CJK compatibility ideographs
    (c >= 0xff00 && c <= 0xffef) || // full-width forms
    (c >= 0x20000 && c <= 0x3134f) // CJK extensions B-G
  );
}

function isEmoji(c: number): boolean {
  return (c >= 0x1f000 && c <= 0x1faff) || (c >= 0x2600 && c <= 0x27bf) || (c >= 0x2b00 && c <= 0x2bff);
}

function isJoiner(c: number): boolean {
  // Zero-width joiner, variation selectors, combining marks, skin-tone modifiers: they ride along
  // with the character before them.
  return c === 0x200d || (c >= 0xfe00 && c <= 0xfe0f) || (c >= 0x0300 && c <= 0x036f) || (c >= 0x1f3fb && c <= 0x1f3ff);
}

function weightOf(c: number): number {
  if (c < 0x80) {
    if ((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a)) return WEIGHT.asciiLetter;
    if (c >= 0x30 && c <= 0x39) return WEIGHT.digit;
    return WEIGHT.asciiPunct;
  }
  if (isJoiner(c)) return WEIGHT.joiner;
  if (c <= 0x024f) return WEIGHT.latinExtended;
  if (isCjk(c)) return WEIGHT.cjk;
  if (isEmoji(c)) return WEIGHT.emoji;
  return WEIGHT.otherAlphabet;
}

/** Where a new segment starts, so where `estimateTokens` is additive: whitespace after non-whitespace. */
export function isSegmentStart(text: string, p: number): boolean {
  if (p <= 0 || p >= text.length) return false;
  return isWhitespace(text.charCodeAt(p)) && !isWhitespace(text.charCodeAt(p - 1));
}

/** A segment that exists costs at least one token, even if it is a lone space or joiner. */
function segmentTokens(weight: number): number {
  return Math.max(1, Math.ceil(weight / UNIT));
}

/** Estimated tokens of `text`; cut at `isSegmentStart`, the pieces' estimates sum to the whole's. */
export function estimateTokens(text: string): number {
  let tokens = 0;
  let segment = 0; // weight of the current segment, in twelfths
  let segmentOpen = false; // the current segment has at least one character
  let inWord = false;
  let runStart = true; // at the first character of a whitespace run
  for (let i = 0; i < text.length; i++) {
    const c = text.codePointAt(i) as number;
    if (c > 0xffff) i++;
    if (isWhitespace(c)) {
      if (inWord) {
        tokens += segmentTokens(segment);
        segment = 0;
        inWord = false;
        runStart = true;
      }
      if (!runStart) segment += WEIGHT.extraSpace;
      runStart = false;
      segmentOpen = true;
      continue;
    }
    inWord = true;
    segmentOpen = true;
    segment += weightOf(c);
  }
  return segmentOpen ? tokens + segmentTokens(segment) : tokens;
}
