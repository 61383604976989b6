import { describe, expect, it } from 'vitest';
import { addEdit, applies, confirmEdit, discardEdit, holdersAhead, isLive, mergeCheckpoint } from './checkpoints.js';
import type { Checkpoint } from './store.js';

const cp = (prefix: number, chainHash: string, createdAt = prefix, extra: Partial<Checkpoint> = {}): Checkpoint => ({
  covered: prefix,
  chainHash,
  summary: `s${prefix}${chainHash}`,
  summaryTokens: 1,
  coveredTokens: 1,
  model: 'm',
  createdAt,
  ...extra,
});
const NOW = 1_000_000;
const onMain = (c: Checkpoint) => c.chainHash.startsWith('main');

describe('mergeCheckpoint', () => {
  it("keeps the writer's branch to perBranch longest prefixes and the other branches to the rest of total, newest first", () => {
    const list = [cp(2, 'main2'), cp(4, 'main4'), cp(6, 'main6'), cp(3, 'b3', 50), cp(5, 'c5', 60), cp(7, 'd7', 10)];
    const merged = mergeCheckpoint(list, cp(8, 'main8'), NOW, { perBranch: 3, total: 5 }, onMain);
    expect(merged.map((c) => c.chainHash)).toEqual(['b3', 'main4', 'c5', 'main6', 'main8']);
  });

  it('replaces a checkpoint of the same prefix and drops provisional ones past their time', () => {
    const list = [cp(4, 'main4'), cp(5, 'x5', 1, { pendingUntil: NOW - 1, pendingToken: 't' }), cp(6, 'y6', 1, { pendingUntil: NOW + 1, pendingToken: 'u' })];
    const merged = mergeCheckpoint(list, { ...cp(4, 'main4'), summary: 'new' }, NOW, { perBranch: 8, total: 8 }, onMain);
    expect(merged.map((c) => [c.chainHash, c.summary])).toEqual([
      ['main4', 'new'],
      ['y6', 's6y6'],
    ]);
  });

  it('sorts by the prefix a checkpoint is about, which clearing can take past its coverage', () => {
    const merged = mergeCheckpoint([cp(5, 'main5')], { ...cp(0, 'main9'), prefix: 9 }, NOW, { perBranch: 8, total: 8 }, onMain);
    expect(merged.map((c) => c.chainHash)).toEqual(['main5', 'main9']);
  });
});

describe('provisional checkpoints', () => {
  const bound = { perBranch: 8, total: 8 };
  const pending = cp(4, 'main4', 1, { pendingUntil: NOW + 60_000, pendingToken: 'mine' });

  it('are live until their time', () => {
    expect(isLive(pending, NOW)).toBe(true);
    expect(isLive(pending, NOW + 60_000)).toBe(false);
    expect(isLive(cp(4, 'main4'), NOW + 1e12)).toBe(true);
  });

  it('are confirmed by a turn that used them: the pending fields go', () => {
    const confirmed = confirmEdit(pending, bound, onMain)([pending], NOW);
    expect(confirmed).toEqual([cp(4, 'main4', 1)]);
    expect(confirmEdit(pending, bound, onMain)(confirmed!, NOW)).toBeNull();
  });

  it('are stored again by a confirming turn when their maker discarded them', () => {
    expect(confirmEdit(pending, bound, onMain)([], NOW)).toEqual([cp(4, 'main4', 1)]);
  });

  it('are discarded only by their maker, and only while still provisional', () => {
    expect(discardEdit('mine')([pending, cp(2, 'main2')], NOW)).toEqual([cp(2, 'main2')]);
    expect(discardEdit('other')([pending], NOW)).toBeNull();
    expect(discardEdit('mine')([cp(4, 'main4', 1)], NOW)).toBeNull();
  });

  it('are added like any checkpoint', () => {
    expect(addEdit(pending, bound, onMain)([], NOW)).toEqual([pending]);
  });
});

describe('applies', () => {
  it('matches the chain link at the prefix, never beyond the request', () => {
    const links = ['l1', 'l2', 'l3'];
    expect(applies(cp(2, 'l2'), links)).toBe(true);
    expect(applies({ ...cp(0, 'l3'), prefix: 3 }, links)).toBe(true);
    expect(applies(cp(2, 'l3'), links)).toBe(false);
    expect(applies(cp(4, 'l4'), links)).toBe(false);
    expect(applies(cp(0, 'l0'), links)).toBe(false);
  });
});

describe('holdersAhead', () => {
  it('finds the locks whose checkpoint the request will be able to use: its own prefix, past its base', () => {
    const holders = [
      { id: 'a', token: 't', prefix: 2, link: 'l2' },
      { id: 'b', token: 't', prefix: 3, link: 'other' },
      { id: 'c', token: 't', prefix: 9, link: 'l9' },
      { id: 'd', token: 't', prefix: 1, link: 'l1' },
    ];
    expect(holdersAhead(holders, ['l1', 'l2', 'l3'], 1).map((h) => h.id)).toEqual(['a']);
    expect(holdersAhead(holders, ['l1', 'l2', 'l3'], 0).map((h) => h.id)).toEqual(['a', 'd']);
  });
});
