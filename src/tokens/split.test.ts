import { describe, expect, it } from 'vitest';
import { ENCODING_NAMES, getTokenizer } from './encodings.js';
import { SAMPLES } from './samples.case.js';
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

  it('leaves a text without safe positions whole', () => {
    const run = 'a'.repeat(5000);
    expect([...piecesForCounting(run, 100, isBpeSafeCut)]).toEqual([run]);
  });
});
