import { describe, expect, it } from 'vitest';
import { ENCODING_NAMES, getTokenizer } from '../tokens/encodings.js';
import { SAMPLES } from '../tokens/samples.case.js';
import { isBpeSafeCut, piecesForCounting } from './split.js';

// Text that stresses every pre-token rule: contractions, upper-case runs, digit groups, CRLF after
// punctuation, tabs, combining marks, astral characters, CJK without spaces, base64.
const TRICKY = [
  "It's HTMLParser's job; they'll re-parse 1234567 items.\r\n\tDone!\n\n",
  'e\u0301te\u0301 cafe\u0301 — naïve co\u00f6perate ½ ² 𠀀𠀁𠀂 𝒳𝒴 👩‍💻 😀😀\n',
  'end.\n\nnext line /path/to/file.ts:12:5 {"a":[1,2,3],"b":"x\\ny"}   \n',
  'QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo+/abcdefghijklmnopqrstuvwxyz0123456789+/==',
  '中文没有空格的长段落，包含标点。还有日本語のテキスト、そして한국어 문장도 있습니다。',
].join('');

function bigMixedText(): string {
  const parts = [...Object.values(SAMPLES), TRICKY];
  let seed = 7;
  let text = '';
  while (text.length < 200_000) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    text += parts[seed % parts.length] + (seed % 3 === 0 ? '\n\n' : ' ');
  }
  return text;
}

describe('piecesForCounting', () => {
  const text = bigMixedText();

  for (const name of ENCODING_NAMES) {
    it(`pieces of a big mixed text count the same as the whole for ${name}`, () => {
      const tokenizer = getTokenizer(name);
      const whole = tokenizer.count(text);
      for (const pieceChars of [4096, 1000, 97]) {
        const pieces = [...piecesForCounting(text, pieceChars, tokenizer.isSafeCut)];
        expect(pieces.join('')).toBe(text);
        expect(pieces.length).toBeGreaterThan(text.length / pieceChars / 2);
        const sum = pieces.reduce((n, piece) => n + tokenizer.count(piece), 0);
        expect(sum).toBe(whole);
      }
    });
  }

  it('cuts the tricky text at every position the rule allows without changing the count', () => {
    for (const name of ['o200k_base', 'cl100k_base'] as const) {
      const tokenizer = getTokenizer(name);
      const whole = tokenizer.count(TRICKY);
      for (let p = 1; p < TRICKY.length; p++) {
        if (!isBpeSafeCut(TRICKY, p)) continue;
        expect(tokenizer.count(TRICKY.slice(0, p)) + tokenizer.count(TRICKY.slice(p)), `${name} cut at ${p}`).toBe(whole);
      }
    }
  });

  it('never cuts inside a letter run, a digit run, a surrogate pair or before a contraction', () => {
    expect(isBpeSafeCut('abc', 1)).toBe(false);
    expect(isBpeSafeCut('123', 1)).toBe(false);
    expect(isBpeSafeCut("it's", 2)).toBe(false);
    expect(isBpeSafeCut('a😀', 2)).toBe(false);
    expect(isBpeSafeCut('end.\nnext', 4)).toBe(false);
    expect(isBpeSafeCut('end\nnext', 3)).toBe(true);
    expect(isBpeSafeCut('end. next', 4)).toBe(true);
  });

  it('cuts a stretch without safe positions anyway, never inside a surrogate pair', () => {
    const run = 'a'.repeat(5000);
    const pieces = [...piecesForCounting(run, 100, isBpeSafeCut)];
    expect(pieces.join('')).toBe(run);
    expect(Math.max(...pieces.map((p) => p.length))).toBe(100);
    const emoji = '😀'.repeat(2000);
    const emojiPieces = [...piecesForCounting(emoji, 101, isBpeSafeCut)];
    expect(emojiPieces.join('')).toBe(emoji);
    expect(emojiPieces.every((p) => p.length % 2 === 0)).toBe(true);
  });

  it('keeps the count of a text around a forced cut within the forced cuts', () => {
    const tokenizer = getTokenizer('o200k_base');
    const text = `${'The first part. '.repeat(50)}${'a1'.repeat(3000)} and the end.`;
    const pieces = [...piecesForCounting(text, 100, tokenizer.isSafeCut)];
    const sum = pieces.reduce((n, piece) => n + tokenizer.count(piece), 0);
    const forced = pieces.filter((p, i) => i < pieces.length - 1 && !tokenizer.isSafeCut(text, pieces.slice(0, i + 1).join('').length)).length;
    expect(forced).toBeGreaterThan(0);
    expect(Math.abs(sum - tokenizer.count(text))).toBeLessThanOrEqual(2 * forced);
  });
});
