import { CLOSE_ARRAY, COMMA, CLOSE_OBJECT, memberKey, nextItem, OPEN_ARRAY, OPEN_OBJECT, skipWhitespace, valueEnd } from './scan.js';
import { type Found, NOT_YET, type SeenItems } from './seen-items.js';

// A body's items are looked up in the cache of seen items while its bytes are still arriving, so
// that comparing a long history with the kept bytes overlaps the network instead of following it:
// by the time the last byte is in, only the new items are left for the parse (body/parse-sliced.ts).
//
// The parse takes an item found here only at the very position it was found, and each is a
// byte-for-byte match of kept bytes, in a body whose bytes are written once, in order, and never
// changed: it is the item the parse would find there itself, whatever this scan made of the body's
// structure before it. So the scan may stop anywhere (at the first item not in the cache, at
// anything unexpected) and leave the rest to the parse, which checks the body as before.

/** An item found while the body arrived: `start` is where its bytes begin. */
interface ArrivedItem extends Found {
  start: number;
}

/** Items found while the body arrived, for the parse. */
export interface ItemsOnArrival {
  /** The item found at `pos`, when one was; positions are asked in increasing order. */
  take(pos: number): Found | undefined;
}

export interface ArrivalMatcher extends ItemsOnArrival {
  /** More of the body is in: `buf` is as long as the whole body, its first `arrived` bytes written. */
  advance(buf: Buffer, arrived: number): void;
}

type Phase = 'document' | 'member' | 'before-item' | 'item' | 'after-item' | 'done';

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
    if (phase === 'item') {
      const item = seen.match(buf, pos, arrived, found.at(-1)?.entry);
      if (item === NOT_YET) return 'wait';
      if (!item) return stop();
      found.push({ start: pos, entry: item.entry, end: item.end });
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
    take(at) {
      while (taken < found.length && found[taken]!.start < at) taken++;
      const item = found[taken];
      return item?.start === at ? item : undefined;
    },
  };
}
