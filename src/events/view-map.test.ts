import { describe, expect, it } from 'vitest';
import type { ItemKind } from '../compaction/items.js';
import { viewMap } from './view-map.js';

const kinds = (text: string): ItemKind[] => [...text].map((c) => ({ u: 'user', a: 'assistant', t: 'result', s: 'instruction' })[c] as ItemKind);

describe('viewMap', () => {
  it('gives each message its index, role, tokens and state; a summarized span is one row', () => {
    // system, then user/assistant ×3, an assistant call and its result, a user turn.
    const rest = kinds('uauauaatu');
    const tokens = [50, ...rest.map((_, i) => 10 * (i + 1))];
    const map = viewMap({ pinnedCount: 1, summaryIndex: null, tokens, kinds: rest, covered: 4, kept: [0], cleared: new Set([7]), summarizedUpTo: 4 });
    expect(map).toEqual([
      [0, 1, 'system', 'pinned', 50],
      [1, 1, 'user', 'kept', 10],
      [2, 3, '*', 'summarized', 20 + 30 + 40],
      [5, 1, 'user', 'kept', 50],
      [6, 1, 'assistant', 'kept', 60],
      [7, 1, 'assistant', 'kept', 70],
      [8, 1, 'tool', 'cleared', 80],
      [9, 1, 'user', 'kept', 90],
    ]);
  });

  it('says dropped where nothing summarized what the view left out, and marks recap’s own summary sent back', () => {
    const rest = kinds('uaua');
    const map = viewMap({ pinnedCount: 2, summaryIndex: 1, tokens: [5, 7, 1, 2, 3, 4], kinds: rest, covered: 2, kept: [], cleared: new Set(), summarizedUpTo: 0 });
    expect(map).toEqual([
      [0, 1, 'system', 'pinned', 5],
      [1, 1, 'system', 'summary', 7],
      [2, 2, '*', 'dropped', 3],
      [4, 1, 'user', 'kept', 3],
      [5, 1, 'assistant', 'kept', 4],
    ]);
  });

  it('marks a left-out message the model got back through recap_recall as recalled', () => {
    const rest = kinds('uatatu');
    const map = viewMap({
      pinnedCount: 1,
      summaryIndex: null,
      tokens: [5, 1, 2, 30, 4, 40, 6],
      kinds: rest,
      covered: 2,
      kept: [0],
      cleared: new Set([4]),
      summarizedUpTo: 2,
      recalled: new Set([2, 5]),
    });
    expect(map).toEqual([
      [0, 1, 'system', 'pinned', 5],
      [1, 1, 'user', 'kept', 1],
      [2, 1, 'assistant', 'recalled', 2],
      [3, 1, 'tool', 'kept', 30],
      [4, 1, 'assistant', 'kept', 4],
      [5, 1, 'tool', 'recalled', 40],
      [6, 1, 'user', 'kept', 6],
    ]);
  });

  it('stays within its bound: older rows of one state fold together, the newest stay one by one', () => {
    const rest = kinds('at'.repeat(1000));
    const cleared = new Set(Array.from({ length: 1000 }, (_, i) => 2 * i + 1).filter((i) => i < 1900));
    const map = viewMap({ pinnedCount: 1, summaryIndex: null, tokens: Array(2001).fill(1), kinds: rest, covered: 0, kept: [], cleared, summarizedUpTo: 0 }, 40);
    expect(map.length).toBeLessThanOrEqual(40);
    expect(map.at(-1)).toEqual([2000, 1, 'tool', 'kept', 1]);
    expect(map.slice(-20).every((row) => row[1] === 1)).toBe(true);
  });
});
