import { LRUCache } from 'lru-cache';
import { OPEN_ARRAY, OPEN_OBJECT } from './scan.js';
import { endWithin } from './end-within.js';
import type { ItemRun } from './item-runs.js';

// The items (chat messages, Responses input items) this process parsed lately, by their bytes: an
// agent resends its whole history with every step, byte for byte, so most items of a request were
// parsed before. An item found here is the object parsed from the same bytes last time, so that
// the request path parses only the bytes that are new; the item's canonical hash and token count
// are memoized per object (conversation/canonical.ts, the token cache), so a known item is neither
// hashed nor counted again either.
//
// Found by comparing bytes, never by trusting a digest: an item is looked up by its first bytes
// (the whole item, when it is short) and taken only when its kept bytes equal the request's at
// that place, a memory compare. A JSON object is self-delimiting, so equal bytes are the same
// item ending at the same place, and no byte of a changed item can reuse what another one parsed
// to. The `tools` definitions are kept the same way. Items are never changed once parsed (the
// engine makes new objects for what it changes), so one object serves every request that sends
// its bytes, concurrent ones too.
//
// An item remembers the lookup key of the item that followed it the last time (link): the next
// item of a resent history is looked for there first, with the key the cache holds, so most items
// cost a memory compare and no scan for their first bytes, nor a new key to hash. A request's
// leading items are kept as one run too (item-runs.ts), found by its first item, under the same
// bound: a later request that starts the same way takes the run over whole.

/** Bytes of an item that look it up; a shorter item is looked up by all of its bytes. */
export const LOOKUP_BYTES = 128;
/** Items kept under one lookup (items whose first bytes are the same); the oldest goes first. */
const PER_LOOKUP = 8;
/** Runs kept per first item (conversations that open alike); the oldest goes first. */
const RUNS_PER_FIRST = 4;
// Per entry: its Buffer (~200 bytes of heap, measured), the bucket's slot and lru-cache's own.
const ENTRY_OVERHEAD_BYTES = 320;

/** A kept item as the cache hands it out; a lookup of the item after it may start from it. */
export interface SeenEntry {
  readonly item: object;
  /** What the item takes in the cache (estimated bytes). */
  readonly size: number;
}

interface Entry extends SeenEntry {
  bytes: Buffer;
  /** Its lookup key: the string the cache holds it under, whose hash is worked out already. */
  key: string;
  /** The lookup key of the item that followed it when it was last sent (link). */
  next?: string;
  /** The keys of the runs that start with it, newest first. */
  runs?: string[];
}

type Kept = Entry[] | ItemRun;

export interface Found {
  entry: SeenEntry;
  /** Just after the item's bytes in the request. */
  end: number;
}

/** What `match` answers while the bytes that decide it have not all arrived. */
export const NOT_YET = 'not yet';

export interface SeenItems {
  /**
   * The item whose bytes start at `pos` in `buf`, when the same bytes were kept; `after`, the
   * item right before it, whose successor is tried first.
   */
  find(buf: Buffer, pos: number, after?: SeenEntry): Found | undefined;
  /**
   * The same while `buf` is still arriving, only its first `arrived` bytes written: NOT_YET when
   * the bytes that decide are not all there (the item may be a kept one).
   */
  match(buf: Buffer, pos: number, arrived: number, after?: SeenEntry): Found | typeof NOT_YET | undefined;
  /**
   * Whether an item of `length` bytes may be kept, when the request it is in has `used` bytes of the
   * cache already (the items it found there and those it kept): not one that alone would take more
   * than a quarter of the bound, nor past half of it for one request. A request bigger than the
   * cache would otherwise push out its own first items while keeping its last ones, and find none
   * of them the next time; this way the next request finds what the first half holds.
   */
  keeps(length: number, used: number): boolean;
  /**
   * Keeps `item` (an object or array), parsed from `buf[start, end)`, for later requests that send
   * these bytes; `parsedBytes`, what the parsed item takes by parsed-size.ts's estimate. Returns
   * the kept entry, or undefined when it was not kept.
   */
  keep(buf: Buffer, start: number, end: number, item: object, parsedBytes: number): SeenEntry | undefined;
  /** `next` came right after `prev` in a request: a later lookup after `prev` tries it first. */
  link(prev: SeenEntry, next: SeenEntry): void;
  /** The runs kept that start with `first`'s item, newest first. */
  runsOf(first: SeenEntry): ItemRun[];
  /**
   * Keeps `run` (when the request that made it, with `used` bytes of the cache already, may); it
   * replaces `taken`, the run the request started with, when it took at least half of its items:
   * the conversation went on from there (or branched off late), and what is left of the old run
   * would only take room. A run taken for a few opening items only (another conversation that
   * opens alike) stays.
   */
  keepRun(run: ItemRun, used: number, taken?: { run: ItemRun; count: number }): void;
  /** What the kept items take, estimated, and how many there are. */
  readonly bytes: number;
  readonly entries: number;
}

/** Objects and arrays only: they are self-delimiting, so equal bytes end where the kept ones did (a number is not). */
function opensContainer(buf: Buffer, pos: number): boolean {
  return buf[pos] === OPEN_OBJECT || buf[pos] === OPEN_ARRAY;
}

function lookupKey(buf: Buffer, pos: number, end: number): string {
  return buf.toString('latin1', pos, end);
}

/**
 * Where the lookup of the item at `pos` ends: the item's own end when it is short, else
 * LOOKUP_BYTES in; NOT_YET when that is past the `arrived` bytes of a body still coming in.
 */
function lookupEnd(buf: Buffer, pos: number, arrived: number): number | typeof NOT_YET {
  const end = endWithin(buf, pos, Math.min(LOOKUP_BYTES, arrived - pos));
  if (end !== -1) return end;
  if (pos + LOOKUP_BYTES <= arrived) return pos + LOOKUP_BYTES;
  return arrived === buf.length ? arrived : NOT_YET;
}

/** Whether `entry`'s bytes are at `pos`; NOT_YET when the arrived part of them is. */
function sameBytes(entry: Entry, buf: Buffer, pos: number, arrived: number): boolean | typeof NOT_YET {
  const length = entry.bytes.length;
  if (pos + length <= arrived) return buf.compare(entry.bytes, 0, length, pos, pos + length) === 0;
  if (arrived === buf.length) return false;
  return buf.compare(entry.bytes, 0, arrived - pos, pos, arrived) === 0 ? NOT_YET : false;
}

/** The entry of `bucket` whose bytes are at `pos`; NOT_YET when one may be, once more has arrived. */
function inBucket(bucket: readonly Entry[] | undefined, buf: Buffer, pos: number, arrived: number): Found | typeof NOT_YET | undefined {
  let pending = false;
  for (const entry of bucket ?? []) {
    const same = sameBytes(entry, buf, pos, arrived);
    if (same === true) return { entry, end: pos + entry.bytes.length };
    if (same === NOT_YET) pending = true;
  }
  return pending ? NOT_YET : undefined;
}

/** A cache of at most `maxBytes` (estimated); 0 keeps nothing. */
export function createSeenItems(maxBytes: number): SeenItems {
  const maxEntry = Math.max(1, Math.floor(maxBytes / 4));
  const lru =
    maxBytes > 0
      ? new LRUCache<string, Kept>({
          maxSize: maxBytes,
          // One huge item never pushes out everything else.
          maxEntrySize: maxEntry,
          sizeCalculation: (kept) => (Array.isArray(kept) ? kept.reduce((n, e) => n + e.size, 0) : kept.size),
        })
      : undefined;
  const quarter = maxBytes / 4;
  const bucketAt = (key: string): Entry[] | undefined => lru?.get(key) as Entry[] | undefined;
  let runSeq = 0;
  const runKeys = new WeakMap<ItemRun, string>();
  function match(buf: Buffer, pos: number, arrived: number, after?: SeenEntry): Found | typeof NOT_YET | undefined {
    if (!lru) return undefined;
    if (pos >= arrived) return arrived < buf.length ? NOT_YET : undefined;
    if (!opensContainer(buf, pos)) return undefined;
    const next = (after as Entry | undefined)?.next;
    const successor = next === undefined ? undefined : inBucket(bucketAt(next), buf, pos, arrived);
    if (successor !== undefined) return successor;
    const keyEnd = lookupEnd(buf, pos, arrived);
    if (keyEnd === NOT_YET) return NOT_YET;
    return inBucket(bucketAt(lookupKey(buf, pos, keyEnd)), buf, pos, arrived);
  }
  return {
    keeps: (length, used) => lru !== undefined && 3 * length + ENTRY_OVERHEAD_BYTES <= quarter && used + 3 * length <= maxBytes / 2,
    find: (buf, pos, after) => match(buf, pos, buf.length, after) as Found | undefined,
    match,
    keep(buf, start, end, item, parsedBytes) {
      if (!lru || !opensContainer(buf, start)) return undefined;
      const key = lookupKey(buf, start, Math.min(end, start + LOOKUP_BYTES));
      const size = end - start + parsedBytes + ENTRY_OVERHEAD_BYTES;
      if (size > maxEntry) return undefined;
      // Its own memory, not a view that would hold the whole request.
      const bytes = Buffer.allocUnsafeSlow(end - start);
      buf.copy(bytes, 0, start, end);
      const entry: Entry = { bytes, item, size, key };
      const others = (bucketAt(key) ?? []).filter((e) => !e.bytes.equals(bytes));
      const bucket = [entry, ...others].slice(0, PER_LOOKUP);
      // lru-cache refuses a bucket over its entry bound, and drops the one it had: the oldest items
      // of the bucket go first instead.
      let total = bucket.reduce((n, e) => n + e.size, 0);
      while (total > maxEntry && bucket.length > 1) total -= bucket.pop()!.size;
      lru.set(key, bucket);
      return entry;
    },
    link(prev, next) {
      (prev as Entry).next = (next as Entry).key;
    },
    runsOf(first) {
      const keys = (first as Entry).runs;
      if (!lru || !keys) return [];
      const runs: ItemRun[] = [];
      for (const key of keys) {
        const run = lru.get(key);
        if (run && !Array.isArray(run)) runs.push(run);
      }
      if (runs.length < keys.length) (first as Entry).runs = runs.map((r) => runKeys.get(r)!);
      return runs;
    },
    keepRun(run, used, taken) {
      if (!lru || run.size > quarter || used + run.size > maxBytes / 2) return;
      const first = run.first as Entry;
      const replaced = taken && 2 * taken.count >= taken.run.items.length && taken.run.first === first ? runKeys.get(taken.run) : undefined;
      if (replaced !== undefined) lru.delete(replaced);
      const key = `\u0000run ${++runSeq}`;
      runKeys.set(run, key);
      lru.set(key, run);
      const keys = [key, ...(first.runs ?? []).filter((k) => k !== replaced)];
      for (const dropped of keys.splice(RUNS_PER_FIRST)) lru.delete(dropped);
      first.runs = keys;
    },
    get bytes() {
      return lru?.calculatedSize ?? 0;
    },
    get entries() {
      let n = 0;
      for (const kept of lru?.values() ?? []) if (Array.isArray(kept)) n += kept.length;
      return n;
    },
  };
}
