import { describe, expect, it } from 'vitest';
import type { Checkpoint } from '../store/store.js';
import { chooseBase, matchingCheckpoints } from './choose-view.js';

const cp = (covered: number, chainHash: string): Checkpoint => ({
  covered,
  chainHash,
  summary: `s${covered}`,
  summaryTokens: 10,
  coveredTokens: 100,
  model: 'm',
  createdAt: 0,
});

describe('matchingCheckpoints', () => {
  const links = ['l1', 'l2', 'l3', 'l4', 'l5'];
  const starts = new Set([0, 2, 4]);
  it('keeps only checkpoints whose chain link matches the request at a round boundary, sorted', () => {
    const record = { version: 3, updatedAt: 0, checkpoints: [cp(4, 'l4'), cp(2, 'l2'), cp(3, 'l3'), cp(4, 'other'), cp(9, 'l9')] };
    expect(matchingCheckpoints(record, links, starts).map((c) => c.covered)).toEqual([2, 4]);
  });
  it('finds nothing after an early edit changed every later link', () => {
    const record = { version: 1, updatedAt: 0, checkpoints: [cp(2, 'l2')] };
    expect(matchingCheckpoints(record, ['x1', 'x2', 'x3'], starts)).toEqual([]);
  });
});

describe('chooseBase', () => {
  const none = { covered: 0, summary: null, checkpoint: null };
  it('prefers the least compacted candidate that fits', () => {
    const cands = [
      { base: none, tokens: 120 },
      { base: { covered: 2, summary: 'a', checkpoint: cp(2, 'l2') }, tokens: 90 },
      { base: { covered: 4, summary: 'b', checkpoint: cp(4, 'l4') }, tokens: 50 },
    ];
    expect(chooseBase(cands, 100)).toEqual({ choice: cands[1], fits: true });
    expect(chooseBase(cands, 200)).toEqual({ choice: cands[0], fits: true });
    expect(chooseBase(cands, 40)).toEqual({ choice: cands[2], fits: false });
  });
});
