import type { TiktokenBPE } from 'js-tiktoken/lite';

// js-tiktoken ships the BPE ranks as text: one line per run of consecutive ranks, "<tag> <first
// rank> <token> <token> ...", each token base64. Its own constructor builds an object of all
// 200,000 tokens, then two maps, one keyed by the bytes joined with commas: most of a second at
// boot. recap needs only token bytes → rank, and keys it by the bytes as a Latin-1 string (one
// character per byte): an ASCII pre-token is then its own key, and a span of it is a slice.

export interface RankTable {
  /** A token's bytes, one Latin-1 character per byte → its rank. */
  ranks: Map<string, number>;
  /** The longest token, in bytes: no longer span is looked up. */
  longestToken: number;
}

export function buildRankTable(bpe: TiktokenBPE): RankTable {
  const ranks = new Map<string, number>();
  let longestToken = 0;
  for (const line of bpe.bpe_ranks.split('\n')) {
    if (line === '') continue;
    const fields = line.split(' ');
    const first = Number.parseInt(fields[1] ?? '', 10);
    // A format change must fail at boot, not miscount.
    if (!Number.isInteger(first)) throw new Error(`unexpected js-tiktoken rank line: ${line.slice(0, 40)}`);
    for (let i = 2; i < fields.length; i++) {
      const key = Buffer.from(fields[i]!, 'base64').toString('latin1');
      ranks.set(key, first + i - 2);
      if (key.length > longestToken) longestToken = key.length;
    }
  }
  if (ranks.size === 0) throw new Error('js-tiktoken rank data is empty');
  return { ranks, longestToken };
}

/** `text` as its UTF-8 bytes, one Latin-1 character per byte: the rank table's key form. */
export function byteString(text: string): string {
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) > 0x7f) return Buffer.from(text, 'utf8').toString('latin1');
  }
  return text;
}
