import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ItemKind } from '../compaction/items.js';
import type { MessageState, ViewRow } from '../store/event-log.js';
import { MAX_ROWS, type ViewMapInput, viewMap } from './view-map.js';

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

// The view map's definition, as first written: a row per message (a summarized or dropped span one
// row), then folded down to the bound. viewMap builds only the rows that go out and must equal it.
const ROLES: Record<ItemKind, string> = { instruction: 'system', user: 'user', assistant: 'assistant', result: 'tool', other: 'other' };

function fold(rows: ViewRow[]): ViewRow[] {
  const out: ViewRow[] = [];
  for (const row of rows) {
    const last = out.at(-1);
    if (last && last[3] === row[3] && last[0] + last[1] === row[0]) {
      out[out.length - 1] = [last[0], last[1] + row[1], last[2] === row[2] ? last[2] : '*', last[3], last[4] + row[4]];
    } else out.push(row);
  }
  return out;
}

function definition(input: ViewMapInput, maxRows = MAX_ROWS): ViewRow[] {
  const rows: ViewRow[] = [];
  for (let j = 0; j < input.pinnedCount; j++) rows.push([j, 1, 'system', j === input.summaryIndex ? 'summary' : 'pinned', input.tokens[j] ?? 0]);
  const kept = new Set(input.kept);
  let run: ViewRow | undefined;
  for (let i = 0; i < input.kinds.length; i++) {
    const gone: MessageState = i < input.summarizedUpTo ? 'summarized' : 'dropped';
    const left: MessageState = i < input.covered ? (kept.has(i) ? 'kept' : gone) : input.cleared.has(i) ? 'cleared' : 'kept';
    const state: MessageState = left !== 'kept' && input.recalled?.has(input.pinnedCount + i) ? 'recalled' : left;
    const row: ViewRow = [input.pinnedCount + i, 1, ROLES[input.kinds[i]!], state, input.tokens[input.pinnedCount + i] ?? 0];
    if (state === gone && run && run[3] === state && run[0] + run[1] === row[0]) {
      run[1]++;
      run[4] += row[4];
      if (run[2] !== row[2]) run[2] = '*';
      continue;
    }
    run = row;
    rows.push(row);
  }
  if (rows.length <= maxRows) return rows;
  const newest = rows.slice(-Math.floor(maxRows / 2));
  const older = fold(rows.slice(0, rows.length - newest.length));
  return [...older, ...newest].slice(-maxRows);
}

/** Indices below `n` drawn with a density of `share` tenths (0: none, 10: all), so that runs of one state form, and a few that name no item. */
const indices = (n: number) =>
  fc
    .tuple(
      fc.integer({ min: 0, max: 10 }),
      fc.array(fc.integer({ min: 0, max: 9 }), { minLength: n, maxLength: n }),
      fc.array(fc.constantFrom(-1, 0.5, n, n + 3), { maxLength: 2 }),
    )
    .map(([share, noise, strays]) => [...noise.flatMap((v, i) => (v < share ? [i] : [])), ...strays]);
/** A bound over `n` items: mostly whole, sometimes a half or below 0. */
const bound = (n: number) => fc.integer({ min: -2, max: 2 * n + 4 }).map((x) => (x % 5 === 1 ? x / 2 : Math.max(0, Math.floor(x / 2))));

const request = fc
  .record({
    pinnedCount: fc.integer({ min: 0, max: 4 }),
    // Sizes below MAX_ROWS and far above it.
    n: fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 150, max: 900 })),
    maxRows: fc.option(fc.integer({ min: 0, max: 24 }), { nil: undefined }),
  })
  .chain(({ pinnedCount, n, maxRows }) =>
    fc.record({
      maxRows: fc.constant(maxRows),
      input: fc.record({
        pinnedCount: fc.constant(pinnedCount),
        summaryIndex: fc.option(fc.integer({ min: 0, max: pinnedCount }), { nil: null }),
        // Sometimes shorter than the request: a missing count is 0 tokens.
        tokens: fc.array(fc.integer({ min: 0, max: 2000 }), { minLength: Math.max(0, pinnedCount + n - 2), maxLength: pinnedCount + n }),
        kinds: fc.array(fc.constantFrom<ItemKind>('instruction', 'user', 'assistant', 'result', 'other'), { minLength: n, maxLength: n }),
        covered: bound(n),
        kept: indices(n),
        cleared: indices(n).map((xs) => new Set(xs)),
        summarizedUpTo: bound(n),
        recalled: fc.option(
          indices(pinnedCount + n).map((xs) => new Set(xs)),
          { nil: undefined },
        ),
      }),
    }),
  );

describe('viewMap against its definition', () => {
  it('gives the same rows on generated requests, within the bound and folded past it', () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(request, ({ input, maxRows }) => {
        const { recalled, ...rest } = input;
        const req: ViewMapInput = recalled ? input : rest;
        const expected = definition(req, maxRows);
        expect(viewMap(req, maxRows)).toEqual(expected);
        const within = definition(req, Number.POSITIVE_INFINITY).length <= (maxRows ?? MAX_ROWS);
        seen.add(within ? 'within' : maxRows === undefined ? 'past MAX_ROWS' : 'past a small bound');
        if (expected.some((row) => row[3] === 'recalled')) seen.add('recalled');
      }),
      { numRuns: 600, seed: 0x7a9e },
    );
    // The generator reaches each shape, so each was compared.
    expect([...seen].sort()).toEqual(['past MAX_ROWS', 'past a small bound', 'recalled', 'within']);
  });
});
