import { isAscii } from 'node:buffer';
import { parsedBytesEstimateSliced } from './parsed-size.js';
import type { ItemsOnArrival } from './items-on-arrival.js';
import { RunBuilder, type TakenRun } from './item-runs.js';
import { type RunNotes, runNotes } from './run-notes.js';
import type { SeenEntry, SeenItems } from './seen-items.js';
import type { Pause } from '../slicing/slicer.js';
import {
  CLOSE_ARRAY,
  CLOSE_OBJECT,
  containerEnd,
  firstItem,
  JsonScanError,
  type Member,
  memberKey,
  nextItem,
  OPEN_ARRAY,
  OPEN_OBJECT,
  type Span,
  skipWhitespace,
  valueEnd,
} from './scan.js';
import { recordKeys } from './walked-keys.js';

// JSON.parse of a big body holds the event loop for its whole length (a 14 MB body of 200k small
// objects: 130-240 ms; a 300k-key object: ~200 ms), and it cannot be interrupted. This parses a
// document the way JSON.parse does, with the same result, in slices: a value of up to
// PIECE_BYTES goes to JSON.parse whole; a bigger object or array is walked by the scanner
// (scan.ts) and its items parsed one by one, pausing between them. Only a few levels are walked;
// deeper, a value goes to JSON.parse whole (JSON.parse does not recurse on the call stack, so any
// depth parses). The array of conversation items (`messages`, `input`) is always walked, item by
// item, and an item whose bytes this process parsed before is taken from the cache of seen items
// (body/seen-items.ts) instead of being parsed again: a request costs the parse of what is new in it.
// The leading items an earlier request sent alike are taken over as one run (body/item-runs.ts).

const PIECE_BYTES = 256 * 1024;
const MAX_WALKED_DEPTH = 8;

/** A member of a walked object; `elements` when its value is an array that was walked too. */
export interface WalkedMember extends Member {
  elements?: Span[];
}

export interface SlicedDocument {
  value: unknown;
  /** The top-level members with their spans, when the document is an object. */
  members: WalkedMember[] | null;
  /** What was noted about the leading items the items array took over from an earlier request (item-runs.ts). */
  run?: RunNotes;
}

function text(buf: Buffer, start: number, end: number): string {
  const bytes = buf.subarray(start, end);
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

function parsePiece(buf: Buffer, start: number, end: number): unknown {
  try {
    return JSON.parse(text(buf, start, end));
  } catch (err) {
    throw new JsonScanError(`${(err as Error).message}, in the value`, start);
  }
}

/** As JSON.parse sets a member: the last of duplicates wins, `__proto__` is an own property. */
function setMember(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}

interface Parsed {
  value: unknown;
  end: number;
  /** For an object or array that was walked: its items' spans. */
  members?: WalkedMember[];
  elements?: Span[];
}

/** Takes `keep`, the keeping of a body's new items for later requests, to run it later. */
export type KeepLater = (keep: () => Promise<void>) => void;

/** The top-level member whose array holds the conversation's items, and the items seen before. */
export interface KnownItems {
  key: string;
  seen: SeenItems;
  /** Top-level members looked up whole, the same way (`tools`: the same definitions every request). */
  whole?: ReadonlySet<string>;
  /** Items already found while the body arrived (body/items-on-arrival.ts). */
  arrived?: ItemsOnArrival | undefined;
  /**
   * Takes the keeping of what is new in the items array (for later requests) to do later: the
   * request path does it once a request that goes first has gone. Without it the parse keeps them.
   */
  keepLater?: KeepLater | undefined;
}

export interface SlicedOptions {
  /** Values up to this size go to JSON.parse whole (smaller in tests, to walk small documents). */
  pieceBytes?: number;
  items?: KnownItems;
}

const isObject = (v: unknown): v is object => v !== null && typeof v === 'object' && !Array.isArray(v);
const isContainer = (v: unknown): v is object => v !== null && typeof v === 'object';

class SlicedParser {
  /** The bytes of the cache of seen items this document found or filled (SeenItems.keeps). */
  private cacheUsed = 0;
  /** The items array as knownItems() read it, for keepNew(). */
  itemsRead: { seen: SeenItems; run: RunBuilder; taken: TakenRun | undefined; after: SeenEntry | undefined; rest: RestItem[] } | undefined;

  constructor(
    private readonly buf: Buffer,
    private readonly pause: Pause,
    private readonly pieceBytes: number,
    private readonly items: KnownItems | undefined,
  ) {}

  /** `walk`: walk an object or array whatever its size (the top level, whose spans are wanted). */
  async value(pos: number, depth: number, walk = false): Promise<Parsed> {
    const first = this.buf[pos];
    const walkable = (first === OPEN_OBJECT || first === OPEN_ARRAY) && depth < MAX_WALKED_DEPTH;
    const end = walk && walkable ? -1 : valueEnd(this.buf, pos, walkable ? this.pieceBytes : Infinity);
    if (end !== -1) return { value: parsePiece(this.buf, pos, end), end };
    return first === OPEN_OBJECT ? this.object(pos, depth) : this.array(pos, depth);
  }

  private async object(open: number, depth: number): Promise<Parsed> {
    const target: Record<string, unknown> = {};
    const members: WalkedMember[] = [];
    const keys: string[] = [];
    let pos = firstItem(this.buf, open, CLOSE_OBJECT);
    let last = open + 1;
    while (pos !== -1) {
      const { key, valueStart } = memberKey(this.buf, pos);
      const child = await this.member(key, valueStart, depth);
      if (!Object.hasOwn(target, key)) keys.push(key);
      setMember(target, key, child.value);
      members.push({ key, keyStart: pos, value: { start: valueStart, end: child.end }, ...(child.elements ? { elements: child.elements } : {}) });
      last = child.end;
      pos = nextItem(this.buf, last, CLOSE_OBJECT);
      // No await unless the slice is used up: an await is a turn of the microtask queue per item.
      const due = this.pause();
      if (due) await due;
    }
    recordKeys(target, keys);
    return { value: target, end: containerEnd(this.buf, last), members };
  }

  /** A member's value: the items array and the members looked up whole go through the cache of seen items at the top level. */
  private async member(key: string, valueStart: number, depth: number): Promise<Parsed> {
    const known = depth === 0 ? this.items : undefined;
    if (known && key === known.key && this.buf[valueStart] === OPEN_ARRAY) return this.knownItems(valueStart, known);
    if (!known?.whole?.has(key)) return this.value(valueStart, depth + 1);
    const found = known.seen.find(this.buf, valueStart);
    if (found) {
      this.cacheUsed += found.entry.size;
      return { value: found.entry.item, end: found.end };
    }
    const child = await this.value(valueStart, depth + 1);
    if (isContainer(child.value)) await this.keep(known.seen, valueStart, child.end, child.value);
    return child;
  }

  /**
   * A new item's entry: the one its bytes have when they were kept since it was parsed (an
   * item the same request sent before, or another request), else the one it is kept as.
   */
  private async keepOrFind(seen: SeenItems, start: number, end: number, value: object, before: SeenEntry | undefined): Promise<SeenEntry | undefined> {
    const found = seen.find(this.buf, start, before);
    if (!found) return this.keep(seen, start, end, value);
    this.cacheUsed += found.entry.size;
    return found.entry;
  }

  /** Keeps a value just parsed for later requests, its size estimated in slices. */
  private async keep(seen: SeenItems, start: number, end: number, value: object): Promise<SeenEntry | undefined> {
    if (!seen.keeps(end - start, this.cacheUsed)) return undefined;
    const entry = seen.keep(this.buf, start, end, value, await parsedBytesEstimateSliced(this.buf, start, end, this.pause));
    this.cacheUsed += entry?.size ?? 0;
    return entry;
  }

  private async array(open: number, depth: number): Promise<Parsed> {
    const target: unknown[] = [];
    const elements: Span[] = [];
    let pos = firstItem(this.buf, open, CLOSE_ARRAY);
    let last = open + 1;
    while (pos !== -1) {
      const child = await this.value(pos, depth + 1);
      target.push(child.value);
      elements.push({ start: pos, end: child.end });
      last = child.end;
      pos = nextItem(this.buf, last, CLOSE_ARRAY);
      // No await unless the slice is used up: an await is a turn of the microtask queue per item.
      const due = this.pause();
      if (due) await due;
    }
    return { value: target, end: containerEnd(this.buf, last), elements };
  }

  /**
   * The items array (walked whatever its size): an item seen before is taken as parsed then, the
   * others parsed; what is new is kept for later requests by keepNew().
   */
  private async knownItems(open: number, { seen, arrived }: KnownItems): Promise<Parsed> {
    const target: unknown[] = [];
    const elements: Span[] = [];
    let pos = firstItem(this.buf, open, CLOSE_ARRAY);
    let last = open + 1;
    let before: SeenEntry | undefined;
    // The run this request's leading items make; those an earlier request's run had are taken over whole.
    const run = pos === -1 ? undefined : new RunBuilder(this.buf, pos);
    const taken = pos === -1 ? undefined : arrived?.takeRun(pos);
    if (taken && run) {
      last = run.takeOver(taken, target, elements);
      this.cacheUsed += taken.run.sizes[taken.count]!;
      before = taken.count === taken.run.items.length ? taken.run.last : undefined;
      pos = nextItem(this.buf, last, CLOSE_ARRAY);
    }
    const after = before;
    const rest: RestItem[] = [];
    while (pos !== -1) {
      const found = arrived?.take(pos) ?? seen.find(this.buf, pos, before);
      if (found) {
        this.cacheUsed += found.entry.size;
        target.push(found.entry.item);
        last = found.end;
        rest.push({ start: pos, end: last, entry: found.entry });
      } else {
        const child = await this.value(pos, 1);
        target.push(child.value);
        last = child.end;
        rest.push({ start: pos, end: last, ...(isObject(child.value) ? { value: child.value } : {}) });
      }
      before = found?.entry;
      elements.push({ start: pos, end: last });
      pos = nextItem(this.buf, last, CLOSE_ARRAY);
      const due = this.pause();
      if (due) await due;
    }
    if (run) this.itemsRead = { seen, run, taken, after, rest };
    return { value: target, end: containerEnd(this.buf, last), elements };
  }

  /**
   * Keeps the items array's new items for later requests, each linked to the one after it (where
   * the next request looks first), and the run its leading items make, with the notes the request
   * path makes on it (`notes`).
   */
  async keepNew(notes: Map<object, unknown>): Promise<void> {
    if (!this.itemsRead) return;
    const { seen, run, taken, rest } = this.itemsRead;
    let before = this.itemsRead.after;
    for (const item of rest) {
      const entry = item.value ? await this.keepOrFind(seen, item.start, item.end, item.value, before) : item.entry;
      if (before && entry) seen.link(before, entry);
      before = entry;
      run.add(item.start, item.end, entry, item.value);
      const due = this.pause();
      if (due) await due;
    }
    const made = run.made(notes);
    if (made) seen.keepRun(made, this.cacheUsed, taken);
  }
}

/** An item of the items array after the run taken over: its entry when it was found, its value when it is new. */
interface RestItem {
  start: number;
  end: number;
  entry?: SeenEntry;
  value?: object;
}

/** The document in `buf`, parsed as JSON.parse would; throws a SyntaxError where it would. */
export async function parseSliced(buf: Buffer, pause: Pause, options: SlicedOptions = {}): Promise<SlicedDocument> {
  const parser = new SlicedParser(buf, pause, options.pieceBytes ?? PIECE_BYTES, options.items);
  const start = skipWhitespace(buf, 0);
  if (start === buf.length) throw new JsonScanError('Unexpected end of JSON input', start);
  const top = await parser.value(start, 0, true);
  const rest = skipWhitespace(buf, top.end);
  if (rest !== buf.length) throw new JsonScanError('Unexpected data after the JSON value', rest);
  const notes = new Map<object, unknown>();
  const keepLater = options.items?.keepLater;
  if (keepLater) keepLater(() => parser.keepNew(notes));
  else await parser.keepNew(notes);
  return { value: top.value, members: top.members ?? null, ...(parser.itemsRead ? { run: runNotes(parser.itemsRead.taken, notes) } : {}) };
}
