// The number of BPE tokens of one pre-token (a word-like piece of the tokenizer's regex), exactly as
// js-tiktoken's merge would produce them, in O(n log n) instead of its O(n²) string building per
// step. Its merge repeatedly joins the adjacent pair of parts whose concatenation has the lowest
// rank, the leftmost on a tie; here the candidate pairs sit in a heap ordered by (rank, start),
// and a popped pair still applies only if both of its parts are unchanged. A long pre-token (a
// run of CJK without punctuation, a pasted blob, a hostile body of long "words") then costs
// milliseconds where js-tiktoken takes seconds to minutes.

/** Rank of the byte span [start, end) of the pre-token, or undefined when it is not a token. */
export type SpanRank = (start: number, end: number) => number | undefined;

/** A binary min-heap of pairs keyed by (rank, start); `end` says which pair the entry was made for. */
class PairHeap {
  private readonly rank: number[] = [];
  private readonly start: number[] = [];
  private readonly end: number[] = [];

  get size(): number {
    return this.rank.length;
  }

  push(rank: number, start: number, end: number): void {
    let i = this.rank.length;
    this.rank.push(rank);
    this.start.push(start);
    this.end.push(end);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  /** Removes the smallest entry and returns its [start, end]. */
  pop(): [number, number] {
    const top: [number, number] = [this.start[0]!, this.end[0]!];
    const last = this.rank.length - 1;
    this.swap(0, last);
    this.rank.pop();
    this.start.pop();
    this.end.pop();
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < last && this.less(left, smallest)) smallest = left;
      if (right < last && this.less(right, smallest)) smallest = right;
      if (smallest === i) return top;
      this.swap(i, smallest);
      i = smallest;
    }
  }

  private less(a: number, b: number): boolean {
    return this.rank[a]! < this.rank[b]! || (this.rank[a] === this.rank[b] && this.start[a]! < this.start[b]!);
  }

  private swap(a: number, b: number): void {
    [this.rank[a], this.rank[b]] = [this.rank[b]!, this.rank[a]!];
    [this.start[a], this.start[b]] = [this.start[b]!, this.start[a]!];
    [this.end[a], this.end[b]] = [this.end[b]!, this.end[a]!];
  }
}

/** Tokens of a pre-token of `length` bytes; parts are identified by the index of their first byte. */
export function mergedTokenCount(length: number, rankOf: SpanRank): number {
  if (length <= 1) return length;
  // next[s]: first byte of the part after the part starting at s (length for the last part).
  const next = new Int32Array(length);
  const prev = new Int32Array(length);
  const alive = new Uint8Array(length).fill(1);
  const heap = new PairHeap();
  for (let s = 0; s < length; s++) {
    next[s] = s + 1;
    prev[s] = s - 1;
    if (s + 2 <= length) {
      const rank = rankOf(s, s + 2);
      if (rank !== undefined) heap.push(rank, s, s + 2);
    }
  }
  const endOf = (s: number) => (next[s]! < length ? next[next[s]!]! : -1);
  // The part after `s` ends at `end`: the pair (s, next) spans [s, end).
  const offer = (s: number) => {
    const end = endOf(s);
    if (end < 0) return;
    const rank = rankOf(s, end);
    if (rank !== undefined) heap.push(rank, s, end);
  };
  let parts = length;
  while (heap.size > 0) {
    const [s, end] = heap.pop();
    if (!alive[s] || endOf(s) !== end) continue;
    const gone = next[s]!;
    alive[gone] = 0;
    next[s] = next[gone]!;
    if (next[s]! < length) prev[next[s]!] = s;
    parts--;
    if (s > 0) offer(prev[s]!);
    offer(s);
  }
  return parts;
}
