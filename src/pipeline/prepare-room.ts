import { LRUCache } from 'lru-cache';

// Rule 10 looks, after each reply below the trigger, whether the view (with the most compacted
// checkpoint stored for it) passes prepare × budget: a look at the whole history and a read of its
// record. When it does not, what was left below that line is room: a later request that resends
// the same items and adds fewer tokens than that room has nothing to prepare either, whatever its
// length. This remembers the room per conversation, so that such a request skips the look. The
// items are compared by identity (the cache of seen items hands out one object per item's bytes),
// their tokens by sum (a changed calibration changes them); a room is trusted for ROOM_MS only, so
// that a checkpoint gone meanwhile (forgotten, expired, another process's) is noticed soon.

export const ROOM_MS = 30_000;
// Item references held for all conversations together (8 bytes each).
const MAX_ITEMS = 2_000_000;

export interface Room {
  /** The items of the request it was worked out for, in order. */
  items: readonly object[];
  /** Their tokens, reply priming and pinned block included (the view without any checkpoint). */
  tokens: number;
  /** The messages' budget it was worked out in. */
  budget: number;
  /** Tokens a request may add before its view could pass prepare × budget. */
  room: number;
  at: number;
}

/** A request as its route counted it: its items, their tokens (aligned), and what every view carries besides. */
export interface CountedRequest {
  items: readonly object[];
  perItem: readonly number[];
  fixedTokens: number;
}

export interface PrepareRooms {
  /** What the look at `conversation` left below the line, for the request `counted`. */
  remember(conversation: string, counted: CountedRequest, budget: number, room: number, now?: number): void;
  /** Whether `counted` provably adds too little to `conversation`'s last look to need another. */
  fitsRoom(conversation: string, counted: CountedRequest, budget: number, now?: number): boolean;
}

function sum(xs: readonly number[], from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) n += xs[i]!;
  return n;
}

export function createPrepareRooms(maxItems = MAX_ITEMS): PrepareRooms {
  const rooms = new LRUCache<string, Room>({ maxSize: maxItems, sizeCalculation: (r) => Math.max(1, r.items.length) });
  return {
    remember(conversation, counted, budget, room, now = Date.now()) {
      if (room <= 0 || counted.items.length > maxItems / 4) {
        rooms.delete(conversation);
        return;
      }
      const tokens = counted.fixedTokens + sum(counted.perItem, 0, counted.perItem.length);
      rooms.set(conversation, { items: counted.items, tokens, budget, room, at: now });
    },
    fitsRoom(conversation, counted, budget, now = Date.now()) {
      const r = rooms.get(conversation);
      if (!r || now - r.at > ROOM_MS || r.budget !== budget || counted.items.length < r.items.length) return false;
      for (let i = 0; i < r.items.length; i++) if (counted.items[i] !== r.items[i]) return false;
      if (counted.fixedTokens + sum(counted.perItem, 0, r.items.length) !== r.tokens) return false;
      return sum(counted.perItem, r.items.length, counted.perItem.length) < r.room;
    },
  };
}
