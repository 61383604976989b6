import { CLOSE_ARRAY, COMMA, CLOSE_OBJECT, memberKey, nextItem, OPEN_ARRAY, OPEN_OBJECT, skipWhitespace, valueEnd } from './scan.js';
import { equalUpTo, type ItemRun, itemsWithin, type TakenRun } from './item-runs.js';
import { type Found, NOT_YET, type SeenEntry, type SeenItems } from './seen-items.js';

// A body's items are looked up in the cache of seen items while its bytes are still arriving, so
// that comparing a long history with the kept bytes overlaps the network instead of following it:
// by the time the last byte is in, only the new items are left for the parse (body/parse-sliced.ts).
//
// The parse takes an item found here only at the very position it was found, and each is a
// byte-for-byte match of kept bytes, in a body whose bytes are written once, in order, and never
// changed: it is the item the parse would find there itself, whatever this scan made of the body's
// structure before it. So the scan may stop anywhere (at the first item not in the cache, at
// anything unexpected) and leave the rest to the parse, which checks the body as before.
//
// When the first item starts a run kept from an earlier request (item-runs.ts), the bytes that
// follow are compared with the run's as they arrive, one compare per chunk, and the request takes
// over as many of the run's items as its bytes equal: the items of a resent history cost no
// lookup each. Several runs may start with the same item (conversations that open alike): each is
// compared until its bytes differ, and the one that goes furthest is taken.

/** An item found while the body arrived: `start` is where its bytes begin. */
interface ArrivedItem extends Found {
  start: number;
}

/** Items found while the body arrived, for the parse. */
export interface ItemsOnArrival {
  /** The item found at `pos`, when one was; positions are asked in increasing order. */
  take(pos: number): Found | undefined;
  /** The run whose items start at `pos`, when the body's first items were taken over as one. */
  takeRun(pos: number): TakenRun | undefined;
}

export interface ArrivalMatcher extends ItemsOnArrival {
  /** More of the body is in: `buf` is as long as the whole body, its first `arrived` bytes written. */
  advance(buf: Buffer, arrived: number): void;
}

type Phase = 'document' | 'member' | 'before-item' | 'item' | 'run' | 'after-item' | 'done';

/** A run being compared with the body's bytes: those before `equal` (from the first item on) are the run's. */
interface Candidate {
  run: ItemRun;
  equal: number;
  open: boolean;
}

/** What one step of the scan did: moved on, stopped for good, or needs bytes not yet in. */
type Step = 'on' | 'done' | 'wait';

/** Follows a body as it arrives, looking up the items of its top-level array `itemsKey`. */
export function matchOnArrival(seen: SeenItems, itemsKey: string): ArrivalMatcher {
  const found: ArrivedItem[] = [];
  let taken = 0;
  let phase: Phase = 'document';
  let pos = 0;
  // A member before the items that ran past the arrived bytes is scanned again only once twice as
  // many of its bytes are in: however it arrives, each byte is scanned a few times at most.
  let retryAt = 0;
  let last: SeenEntry | undefined;
  // The runs that start with the body's first item, from `base`, its first byte.
  let candidates: Candidate[] = [];
  let base = 0;
  let run: (TakenRun & { start: number }) | undefined;

  const stop = (): Step => {
    phase = 'done';
    return 'done';
  };
  const goOn = (at: number, next: Phase): Step => {
    pos = at;
    phase = next;
    return 'on';
  };

  /** One step from `pos`; `view` holds only the arrived bytes, so no scan reads past them. */
  function step(buf: Buffer, view: Buffer): Step {
    const arrived = view.length;
    if (phase === 'run') return compareRuns(buf, arrived);
    if (phase === 'item') {
      const item = seen.match(buf, pos, arrived, last);
      if (item === NOT_YET) return 'wait';
      if (!item) return stop();
      if (found.length === 0 && run === undefined) {
        candidates = seen.runsOf(item.entry).map((run) => ({ run, equal: 0, open: true }));
        if (candidates.length > 0) {
          base = pos;
          phase = 'run';
          return 'on';
        }
      }
      found.push({ start: pos, entry: item.entry, end: item.end });
      last = item.entry;
      return goOn(item.end, 'after-item');
    }
    const at = skipWhitespace(view, pos);
    if (at >= arrived) return 'wait';
    const b = view[at];
    switch (phase) {
      case 'document':
        return b === OPEN_OBJECT ? goOn(at + 1, 'member') : stop();
      case 'member': {
        if (b === CLOSE_OBJECT) return stop();
        const { key, valueStart } = memberKey(view, at);
        if (valueStart >= arrived) return 'wait';
        if (key === itemsKey) return view[valueStart] === OPEN_ARRAY ? goOn(valueStart + 1, 'before-item') : stop();
        const next = nextItem(view, valueEnd(view, valueStart), CLOSE_OBJECT);
        return next === -1 ? stop() : goOn(next, 'member');
      }
      case 'before-item':
        return b === CLOSE_ARRAY ? stop() : goOn(at, 'item');
      default: // after an item
        return b === COMMA ? goOn(at + 1, 'before-item') : stop();
    }
  }

  /** Compares the arrived bytes with each open candidate; once none is open, takes the one that went furthest. */
  function compareRuns(buf: Buffer, arrived: number): Step {
    const whole = arrived === buf.length;
    let open = false;
    for (const c of candidates.filter((x) => x.open)) {
      const to = Math.min(arrived - base, c.run.bytes.length);
      if (to > c.equal) {
        const same = buf.compare(c.run.bytes, c.equal, to, base + c.equal, base + to) === 0;
        c.equal = same ? to : equalUpTo(c.run, buf, base, c.equal, to);
        c.open = same;
      }
      if (c.equal === c.run.bytes.length || whole) c.open = false;
      open ||= c.open;
    }
    if (open) return 'wait';
    let best: TakenRun | undefined;
    for (const c of candidates) {
      const count = itemsWithin(c.run, c.equal);
      if (count > (best?.count ?? 0)) best = { run: c.run, count };
    }
    candidates = [];
    // The first item was found, so its own bytes equal every candidate's first item's: some run has it.
    if (!best) return stop();
    run = { ...best, start: base };
    last = best.count === best.run.items.length ? best.run.last : undefined;
    return goOn(base + best.run.ends[best.count - 1]!, 'after-item');
  }

  return {
    advance(buf, arrived) {
      if (phase === 'done' || arrived < retryAt) return;
      const view = buf.subarray(0, arrived);
      const whole = arrived === buf.length;
      try {
        let last: Step;
        do last = step(buf, view);
        while (last === 'on');
        if (whole) phase = 'done';
      } catch {
        // A member cut short by the bytes not yet in (or a body the parse will refuse).
        if (whole) phase = 'done';
        else retryAt = Math.min(buf.length, 2 * arrived - pos);
      }
    },
    takeRun(at) {
      return run?.start === at ? run : undefined;
    },
    take(at) {
      while (taken < found.length && found[taken]!.start < at) taken++;
      const item = found[taken];
      return item?.start === at ? item : undefined;
    },
  };
}
