import { mentions } from '../compaction/identifiers.js';

// Deterministic grading: an answer is right when it holds every expected string as a whole token
// (ORD-44110 is not ORD-4411), whatever the case, the spacing or Markdown emphasis around it. Nothing is inferred: an answer that says the
// right thing in other words ("the Stripe account" for "Stripe" passes, "four thousand five
// hundred dollars" for "$4,500" does not) is graded by the strings it quotes.

export function normalize(text: string): string {
  return text
    .replace(/[*_`]+(?=\S)|(?<=\S)[*_`]+/g, (m, offset: number, whole: string) => (isInsideWord(whole, offset, m.length) ? m : ''))
    .replace(/\s+/g, ' ')
    .toLowerCase();
}

/** Emphasis marks stay when they sit inside a word or identifier (user_42, ERR_CODE). */
function isInsideWord(text: string, at: number, length: number): boolean {
  return /[A-Za-z0-9]/.test(text[at - 1] ?? '') && /[A-Za-z0-9]/.test(text[at + length] ?? '');
}

export function passes(answer: string, expected: readonly string[]): boolean {
  const said = normalize(answer);
  return expected.every((e) => mentions(said, normalize(e)));
}
