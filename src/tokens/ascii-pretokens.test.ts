import fc from 'fast-check';
import { createRequire } from 'node:module';
import type { TiktokenBPE } from 'js-tiktoken/lite';
import { describe, expect, it } from 'vitest';
import { asciiPieceEnd, type PieceEnd } from './ascii-pretokens.js';

const requireRanks = createRequire(import.meta.url);
const NAMES = ['o200k_base', 'cl100k_base'] as const;

function patternOf(name: (typeof NAMES)[number]): string {
  return (requireRanks(`js-tiktoken/ranks/${name}`) as TiktokenBPE).pat_str;
}

function regexPieces(pattern: string, text: string): string[] {
  return [...text.matchAll(new RegExp(pattern, 'gu'))].map((m) => m[0]);
}

function handPieces(pieceEnd: PieceEnd, text: string): string[] {
  const pieces: string[] = [];
  for (let pos = 0, end = 0; pos < text.length; pos = end) {
    end = pieceEnd(text, pos);
    pieces.push(text.slice(pos, end));
  }
  return pieces;
}

// What decides a piece's end: cases and contractions, digits, `_`, `/`, every kind of ASCII
// whitespace (and the control characters that are not whitespace), punctuation.
const TRICKY = 'aAbZsStTrReEvVlLdDmMxX09_\'"-/\\ \t\n\r\u000b\u000c\u0000\u001c\u001f\u007f.,;:!?()[]{}<>@#$%^&*+=|~`';
const trickyText = fc.array(fc.constantFrom(...TRICKY), { maxLength: 40 }).map((cs) => cs.join(''));
const anyAscii = fc.array(fc.integer({ min: 0, max: 0x7f }), { maxLength: 40 }).map((codes) => String.fromCharCode(...codes));

describe('asciiPieceEnd', () => {
  it.each(NAMES)("recognises js-tiktoken's %s pattern", (name) => {
    expect(asciiPieceEnd(patternOf(name))).toBeDefined();
  });

  it('has no hand-compiled form for any other pattern', () => {
    expect(asciiPieceEnd(`${patternOf('o200k_base')}|x`)).toBeUndefined();
    expect(asciiPieceEnd('\\s+|\\S+')).toBeUndefined();
  });

  it.each(NAMES)('cuts ASCII text into the same pieces as the %s regular expression', (name) => {
    const pattern = patternOf(name);
    const pieceEnd = asciiPieceEnd(pattern)!;
    fc.assert(
      fc.property(fc.oneof(trickyText, anyAscii), (text) => {
        expect(handPieces(pieceEnd, text)).toEqual(regexPieces(pattern, text));
      }),
      { numRuns: 3000, seed: 20261205 },
    );
  });

  it.each(NAMES)('cuts every ASCII text of one or two characters as the %s regular expression does', (name) => {
    const pattern = patternOf(name);
    const pieceEnd = asciiPieceEnd(pattern)!;
    for (let a = 0; a < 128; a++) {
      const one = String.fromCharCode(a);
      expect(handPieces(pieceEnd, one)).toEqual(regexPieces(pattern, one));
      for (let b = 0; b < 128; b++) {
        const two = one + String.fromCharCode(b);
        expect(handPieces(pieceEnd, two)).toEqual(regexPieces(pattern, two));
      }
    }
  });

  it.each(NAMES)('cuts contractions, case changes and line ends as the %s regular expression does', (name) => {
    const pattern = patternOf(name);
    const pieceEnd = asciiPieceEnd(pattern)!;
    for (const text of ["it's the USER'S call, they'LL see 'sup", 'getHTTPResponse XMLHttpRequest ABC', '  x\t\ty \r\n\r\n  z!!\n/\n/', ' 12345 a1b2 __init__ ,;\u000b\u000cq']) {
      expect(handPieces(pieceEnd, text)).toEqual(regexPieces(pattern, text));
    }
  });
});
