import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { viewTokens } from '../compaction/layout.js';
import { summaryCodec } from '../compaction/summary-message.js';
import { messageHash } from '../conversation/canonical.js';
import type { ChatMessage } from '../messages/types.js';
import type { Checkpoint } from '../store/store.js';
import { chatWire } from '../wire/chat/items.js';
import { createAnalysisMemos } from './analysis-memo.js';
import { type Analysis, analyze, buildView } from './analyze.js';
import { baseView, candidates, noSummaryBase } from './choose-view.js';

// A request that extends the previous one of its conversation takes over that one's analysis
// (the reused path): every figure a decision reads must be what analysing it whole gives, however
// the conversation goes on (growth, a resend, an edit, a branch from an older point).

const codec = summaryCodec('test-secret-0123456789', 'tenant');

/** A message made fresh (a new object, as a parse of new bytes makes one). */
const message = fc.oneof(
  fc.constant((): ChatMessage => ({ role: 'system', content: 'rule' })),
  fc.string({ maxLength: 6 }).map((t) => (): ChatMessage => ({ role: 'user', content: `u${t}` })),
  fc.string({ maxLength: 6 }).map((t) => (): ChatMessage => ({ role: 'assistant', content: `a${t}` })),
  fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 2 }).map(
    (ids) => (): ChatMessage => ({
      role: 'assistant',
      content: null,
      tool_calls: ids.map((id) => ({ id: `c${id}`, type: 'function', function: { name: `f${id}`, arguments: '{}' } })),
    }),
  ),
  fc.tuple(fc.integer({ min: 0, max: 4 }), fc.string({ maxLength: 30 })).map(
    ([id, t]) =>
      (): ChatMessage => ({ role: 'tool', tool_call_id: `c${id}`, content: `r${t}` }),
  ),
);

type Move = { kind: 'grow'; add: (() => ChatMessage)[] } | { kind: 'edit'; at: number; make: () => ChatMessage } | { kind: 'branch'; keep: number; add: (() => ChatMessage)[] };

const move = fc.oneof(
  fc.array(message, { maxLength: 5 }).map((add): Move => ({ kind: 'grow', add })),
  fc.tuple(fc.nat(), message).map(([at, make]): Move => ({ kind: 'edit', at, make })),
  fc.tuple(fc.nat(), fc.array(message, { minLength: 1, maxLength: 4 })).map(([keep, add]): Move => ({ kind: 'branch', keep, add })),
);

function analysisOf(items: ChatMessage[], memo?: { memos: ReturnType<typeof createAnalysisMemos>; bytes: number }): Analysis<ChatMessage> {
  return analyze({
    items,
    tokens: items.map((m) => 5 + JSON.stringify(m).length),
    hashes: items.map(messageHash),
    primingTokens: 3,
    countItem: (m) => 5 + JSON.stringify(m).length,
    wire: chatWire,
    codec,
    recall: true,
    ...(memo ? { memo: { memos: memo.memos, key: 'conversation', bytes: memo.bytes } } : {}),
  });
}

/** What the request path reads of an analysis. */
function figures(a: Analysis<ChatMessage>, record: { version: number; updatedAt: number; checkpoints: Checkpoint[] }) {
  const { unitAt, ...seg } = a.seg;
  const cleared = new Set(a.seg.kinds.flatMap((k, i) => (k === 'result' ? [i] : [])));
  return {
    seg,
    starts: Array.from({ length: a.rest.length + 1 }, (_, i) => unitAt.get(i) ?? null),
    links: a.links,
    pinned: a.pinned,
    rest: a.rest,
    fixed: a.layout.fixedTokens,
    clientSummary: a.clientSummary,
    own: viewTokens(a.layout, baseView(a, noSummaryBase(a))),
    cleared: viewTokens(a.layout, { covered: 0, kept: [], cleared, summaryTokens: 0 }),
    candidates: candidates(a, record).map((c) => ({ tokens: c.tokens, covered: c.base.covered, cleared: [...c.base.cleared] })),
  };
}

describe('the analysis memo', () => {
  it('gives every request the figures of analysing it whole, over random growth, edits and branches', () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 12 }), fc.array(move, { minLength: 1, maxLength: 10 }), (first, moves) => {
        const memos = createAnalysisMemos({ entries: 4, bytes: 1 << 20 });
        let items = first.map((make) => make());
        for (const m of [{ kind: 'grow', add: [] } as Move, ...moves]) {
          if (m.kind === 'grow') items = [...items, ...m.add.map((make) => make())];
          else if (m.kind === 'edit' && items.length > 0) items = items.map((item, i) => (i === m.at % items.length ? m.make() : item));
          else if (m.kind === 'branch') items = [...items.slice(0, m.keep % (items.length + 1)), ...m.add.map((make) => make())];
          const whole = analysisOf(items);
          // A checkpoint of a prefix this request starts with, clearing its results: the reused path's record.
          const prefix = whole.links.length;
          const checkpoints: Checkpoint[] =
            prefix === 0
              ? []
              : [
                  {
                    covered: 0,
                    prefix,
                    chainHash: whole.links[prefix - 1]!,
                    cleared: whole.seg.kinds.flatMap((k, i) => (k === 'result' ? [i] : [])),
                    summary: '',
                    summaryTokens: 0,
                    coveredTokens: 0,
                    model: 'clearing',
                    createdAt: 0,
                  },
                ];
          const record = { version: 1, updatedAt: 0, checkpoints };
          expect(figures(analysisOf(items, { memos, bytes: 100 }), record)).toEqual(figures(whole, record));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('takes over the previous request of the conversation only when it starts with the same item objects', () => {
    const memos = createAnalysisMemos({ entries: 4, bytes: 1 << 20 });
    const items: ChatMessage[] = [
      { role: 'user', content: 'task' },
      { role: 'assistant', content: 'ok' },
    ];
    memos.remember('c', { items, neutral: [], tokens: [4, 4], seg: analysisOf(items).seg, summaryItems: new Map(), recall: false }, 10);
    expect(memos.prior('c', [...items, { role: 'user', content: 'next' }])).toBeDefined();
    // The same bytes parsed anew are other objects: not taken over (nothing says they were not changed).
    expect(memos.prior('c', [items[0]!, { role: 'assistant', content: 'ok' }])).toBeUndefined();
    expect(memos.prior('c', items.slice(0, 1))).toBeUndefined();
    expect(memos.prior('other', items)).toBeUndefined();
    // The last request's memo, whatever the next holds (a branch of it, decision-memo.ts noteForPrefix).
    expect(memos.latest('c')?.items).toBe(items);
    expect(memos.latest('other')).toBeUndefined();
  });

  it('keeps at most its bound of entries and bytes, the least recently remembered going first', () => {
    const memos = createAnalysisMemos({ entries: 2, bytes: 100 });
    const items = [{ role: 'user', content: 'x' }];
    const memo = { items, neutral: [], tokens: [4], seg: analysisOf(items as ChatMessage[]).seg, summaryItems: new Map(), recall: false };
    memos.remember('a', memo, 10);
    memos.remember('b', memo, 10);
    memos.remember('c', memo, 10);
    expect(memos.prior('a', items)).toBeUndefined();
    expect(memos.prior('b', items)).toBeDefined();
    memos.remember('d', memo, 95);
    expect([memos.prior('b', items), memos.prior('c', items)]).toEqual([undefined, undefined]);
    expect(memos.prior('d', items)).toBeDefined();
    // One request bigger than the whole bound is not kept at all.
    memos.remember('e', memo, 101);
    expect(memos.prior('e', items)).toBeUndefined();
  });
});

describe("a conversation's summary items", () => {
  const analysed = (items: ChatMessage[], memos: ReturnType<typeof createAnalysisMemos>, recall: boolean, counted: ChatMessage[]) =>
    analyze({
      items,
      tokens: items.map(() => 5),
      hashes: items.map(messageHash),
      primingTokens: 3,
      countItem: (m) => {
        counted.push(m);
        return 5;
      },
      wire: chatWire,
      codec: summaryCodec('test-secret-0123456789', 'tenant', { recall }),
      recall,
      memo: { memos, key: 'conversation', bytes: 0 },
    });

  it('are one object per summary across its requests (counted as one: the counter knows an object it counted), and others for another recall offer', () => {
    const memos = createAnalysisMemos({ entries: 4, bytes: 1 << 20 });
    const items: ChatMessage[] = [
      { role: 'user', content: 'task' },
      { role: 'assistant', content: 'ok' },
    ];
    const counted: ChatMessage[] = [];
    const first = analysed(items.slice(), memos, true, counted);
    const summary = first.summaryItem('what happened');
    first.summaryTokens('what happened');
    items.push({ role: 'user', content: 'next' });
    const next = analysed(items.slice(), memos, true, counted);
    expect(next.summaryItem('what happened')).toBe(summary);
    next.summaryTokens('what happened');
    expect(counted).toEqual([summary, summary]);
    expect(counted[1]).toBe(counted[0]);
    // Sealed as a fresh codec seals it, and what goes upstream is that very object.
    expect(summary).toEqual(chatWire.summaryItem(summaryCodec('test-secret-0123456789', 'tenant', { recall: true }).seal('what happened')));
    expect(buildView(next, 'what happened', { covered: 1, kept: [], cleared: new Set() })).toContain(summary);
    // Without a recall offer the summary says nothing of recall: another item.
    items.push({ role: 'assistant', content: 'done' });
    const plain = analysed(items.slice(), memos, false, counted);
    expect(plain.summaryItem('what happened')).not.toEqual(summary);
  });
});
