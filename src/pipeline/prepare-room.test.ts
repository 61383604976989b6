import { describe, expect, it } from 'vitest';
import { createPrepareRooms, ROOM_MS } from './prepare-room.js';

const item = (n: number) => ({ role: 'user', content: `message ${n}` });
const history = Array.from({ length: 6 }, (_, i) => item(i));
const counted = (items: object[], perItem: number[], fixedTokens = 3) => ({ items, perItem, fixedTokens });
const base = counted(history, [10, 20, 30, 40, 50, 60]);
const BUDGET = 1000;

describe('the room a look left below the prepare line', () => {
  it('lets a request that resends the same items and adds less than the room skip the look', () => {
    const rooms = createPrepareRooms();
    rooms.remember('c', base, BUDGET, 100, 0);
    const next = [...history, item(6), item(7)];
    expect(rooms.fitsRoom('c', counted(next, [10, 20, 30, 40, 50, 60, 40, 59]), BUDGET, 1)).toBe(true);
    expect(rooms.fitsRoom('c', counted(next, [10, 20, 30, 40, 50, 60, 40, 60]), BUDGET, 1)).toBe(false);
  });

  it('does not trust a room for another history, budget, calibration or conversation, nor an old one', () => {
    const rooms = createPrepareRooms();
    rooms.remember('c', base, BUDGET, 100, 0);
    const added = [10, 20, 30, 40, 50, 60, 5];
    // An earlier item edited: another object, whatever its tokens.
    const edited = [...history.slice(0, 2), item(2), ...history.slice(3), item(6)];
    expect(rooms.fitsRoom('c', counted(edited, added), BUDGET, 1)).toBe(false);
    expect(rooms.fitsRoom('c', counted(history.slice(0, 5), [10, 20, 30, 40, 50]), BUDGET, 1)).toBe(false);
    expect(rooms.fitsRoom('c', counted([...history, item(6)], added), BUDGET + 1, 1)).toBe(false);
    // The same items counted otherwise (a new calibration): the room was worked out in other tokens.
    expect(rooms.fitsRoom('c', counted([...history, item(6)], [11, 20, 30, 40, 50, 60, 5]), BUDGET, 1)).toBe(false);
    expect(rooms.fitsRoom('other', counted([...history, item(6)], added), BUDGET, 1)).toBe(false);
    expect(rooms.fitsRoom('c', counted([...history, item(6)], added), BUDGET, ROOM_MS + 1)).toBe(false);
    expect(rooms.fitsRoom('c', counted([...history, item(6)], added), BUDGET, ROOM_MS)).toBe(true);
  });

  it('keeps no room past the line, and forgets one the next look found none in', () => {
    const rooms = createPrepareRooms();
    rooms.remember('c', base, BUDGET, 0, 0);
    expect(rooms.fitsRoom('c', base, BUDGET, 1)).toBe(false);
    rooms.remember('c', base, BUDGET, 100, 0);
    rooms.remember('c', base, BUDGET, -5, 1);
    expect(rooms.fitsRoom('c', base, BUDGET, 2)).toBe(false);
  });
});
