import type { SeenEntry } from './seen-items.js';

// A request's leading conversation items as one run of bytes: a conversation resends its history
// with every request, so the next request starts with the same run and adds a few items. Taking
// the whole run over at once (one memory compare of its bytes while the body arrives, one copy of
// its parsed items) costs next to nothing per item, where a lookup per item costs microseconds
// each: thousands of short messages made the known part the biggest cost of a long chat.
//
// A run is taken only as far as the request's bytes equal the kept ones, item by item (an item
// ends where its kept bytes end, since every item of a run is a JSON object, self-delimiting), so
// no changed byte reuses what another request parsed. What the request path worked out about the
// run's items (shape checks, hashes, exact counts) is noted on the run, aligned with its items,
// and read back for the items a later request takes over (RunNotes).

export interface ItemRun {
  /** The bytes from the first item's start to the last item's end, as the request sent them. */
  readonly bytes: Buffer;
  /** Each item's start and end within `bytes`. */
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  /** The items parsed from those bytes, in order. */
  readonly items: readonly object[];
  /** What the first i items take in the cache of seen items (i from 0 to their number). */
  readonly sizes: Float64Array;
  /** The first item's entry, which the run is found by, and the last one's, after which the next item is looked for. */
  readonly first: SeenEntry;
  readonly last: SeenEntry | undefined;
  /** What the run takes in the cache (estimated bytes): its bytes held, its items, its notes. */
  readonly size: number;
  /** What the request path noted about the items, per consumer (RunNotes.note). */
  readonly notes: Map<object, unknown>;
}

/** A run a request started with: its first `count` items are the run's. */
export interface TakenRun {
  run: ItemRun;
  count: number;
}

/** Per item, for what the request path notes alongside it (hashes, counts). */
const NOTE_BYTES_PER_ITEM = 48;
const RUN_OVERHEAD_BYTES = 512;

/** How many of `run`'s items end within its first `length` bytes. */
export function itemsWithin(run: ItemRun, length: number): number {
  let lo = 0;
  let hi = run.ends.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (run.ends[mid]! <= length) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * `buf` from `base` on differs from `run.bytes` somewhere in [from, to) (relative to both, the
 * bytes before `from` equal): the end of the last item whose bytes all equal, or `from` when none
 * ends in between.
 */
export function equalUpTo(run: ItemRun, buf: Buffer, base: number, from: number, to: number): number {
  let lo = itemsWithin(run, from);
  let hi = itemsWithin(run, to);
  let equal = from;
  // Items lo..hi-1 end in (from, to]: the first whose bytes differ is found by halving. Each
  // compare starts at the end of the last item found equal: bytes known to equal are not compared
  // again at every halving (a branch of a long history shares all of it with each run that opens
  // like it, and differs only in its last items).
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const end = run.ends[mid]!;
    if (buf.compare(run.bytes, equal, end, base + equal, base + end) === 0) {
      equal = end;
      lo = mid + 1;
    } else hi = mid;
  }
  return equal;
}

/** A request's leading items that all have entries in the cache, made into the run later requests take over. */
export class RunBuilder {
  /** The items taken over from an earlier run: its first `count`, at the same offsets from `base`. */
  private prefix: TakenRun | undefined;
  // The items after them, each's start and end in `raw` and its entry's size.
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  private readonly items: object[] = [];
  private readonly entrySizes: number[] = [];
  private first: SeenEntry | undefined;
  private last: SeenEntry | undefined;
  private open = true;

  /** `base`: where the items array's first item starts in `raw`. */
  constructor(
    private readonly raw: Buffer,
    private readonly base: number,
  ) {}

  /**
   * The first `taken.count` items are `taken.run`'s: pushed onto the parse's items and spans.
   * Returns where the last of them ends in `raw`.
   */
  takeOver(taken: TakenRun, target: unknown[], spans: { start: number; end: number }[]): number {
    const { run, count } = taken;
    const { base } = this;
    for (let i = 0; i < count; i++) {
      target.push(run.items[i]);
      spans.push({ start: base + run.starts[i]!, end: base + run.ends[i]! });
    }
    this.prefix = taken;
    this.first = run.first;
    this.last = count === run.items.length ? run.last : undefined;
    return base + run.ends[count - 1]!;
  }

  /**
   * The next item, parsed or found in `[start, end)`: the run goes on while each has an entry.
   * `item`, the request's own object when it is not the entry's (its bytes were kept by another).
   */
  add(start: number, end: number, entry: SeenEntry | undefined, item?: object): void {
    if (!this.open || !entry) {
      this.open = false;
      return;
    }
    this.first ??= entry;
    this.starts.push(start);
    this.ends.push(end);
    this.items.push(item ?? entry.item);
    this.entrySizes.push(entry.size);
    this.last = entry;
  }

  /** The run, if it has any item, with `notes` (what the request path notes on it). */
  made(notes: Map<object, unknown>): ItemRun | undefined {
    const { first, prefix } = this;
    const k = prefix?.count ?? 0;
    const n = k + this.items.length;
    if (!first || n === 0) return undefined;
    const starts = new Int32Array(n);
    const ends = new Int32Array(n);
    const sizes = new Float64Array(n + 1);
    const items = prefix ? prefix.run.items.slice(0, k) : [];
    if (prefix) {
      starts.set(prefix.run.starts.subarray(0, k));
      ends.set(prefix.run.ends.subarray(0, k));
      sizes.set(prefix.run.sizes.subarray(0, k + 1));
    }
    for (let i = k; i < n; i++) {
      starts[i] = this.starts[i - k]! - this.base;
      ends[i] = this.ends[i - k]! - this.base;
      sizes[i + 1] = sizes[i]! + this.entrySizes[i - k]!;
      items.push(this.items[i - k]!);
    }
    const { bytes, held } = heldBytes(this.raw, this.base, this.base + ends[n - 1]!);
    // The items' parsed form (what their entries take but their bytes) is counted again here, as
    // their entries count it too: an entry pushed out of the cache lives on in the run.
    const size = held + sizes[n]! - (ends[n - 1]! - starts[0]!) + n * NOTE_BYTES_PER_ITEM + RUN_OVERHEAD_BYTES;
    return { bytes, starts, ends, items, sizes, first, last: this.last, size, notes };
  }
}

/**
 * What holding `bytes` costs: a view of a buffer of its own holds the whole buffer, so it is kept
 * only when the items are most of it; a pooled buffer, or one the items are a small part of (a
 * body with a huge other field, say: a 2 MiB model name), is copied, so that no run keeps bytes
 * that are not its items'.
 */
function heldBytes(raw: Buffer, start: number, end: number): { bytes: Buffer; held: number } {
  if (raw.byteOffset === 0 && raw.buffer.byteLength === raw.length && (end - start) * 2 >= raw.length) return { bytes: raw.subarray(start, end), held: raw.length };
  const bytes = Buffer.allocUnsafeSlow(end - start);
  raw.copy(bytes, 0, start, end);
  return { bytes, held: bytes.length };
}
