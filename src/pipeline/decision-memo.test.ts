import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { summaryCodec } from '../compaction/summary-message.js';
import { modelSchema } from '../config/schema.js';
import { messageHash } from '../conversation/canonical.js';
import type { ChatMessage } from '../messages/types.js';
import type { Checkpoint, ConversationRecord } from '../store/store.js';
import { chatWire } from '../wire/chat/items.js';
import { createAnalysisMemos } from './analysis-memo.js';
import { type Analysis, analyze, buildView } from './analyze.js';
import { candidates, chooseBase, matchingCheckpoints } from './choose-view.js';
import { identityOf, noteForPrefix, noteOf, takeOver } from './decision-memo.js';

// A request that extends the previous one of its conversation takes over that one's forward
// decision: whenever it does, the candidates, the choice and the view must be what deciding it
// whole gives; and it must not when what the decision was made from has changed.

const codec = summaryCodec('test-secret-0123456789', 'tenant');
const model = modelSchema.parse({ match: 'gpt-test', upstream: 'u', context_window: 100_000, max_output_tokens: 1000 });
const count = (m: ChatMessage) => 5 + JSON.stringify(m).length;

const call = (id: string): ChatMessage => ({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: `f${id}`, arguments: '{}' } }] });
const result = (id: string, text: string): ChatMessage => ({ role: 'tool', tool_call_id: id, content: `result ${text}` });

/** One step of an agent: a user turn, a reply, or a call with its result (ids never used before). */
const step = fc.oneof(
  fc.string({ maxLength: 40 }).map((t) => (id: number): ChatMessage[] => [{ role: 'user', content: `u${t}` }]),
  fc.string({ maxLength: 40 }).map((t) => (id: number): ChatMessage[] => [{ role: 'assistant', content: `a${t}${id}` }]),
  fc.string({ maxLength: 200 }).map((t) => (id: number): ChatMessage[] => [call(`c${id}`), result(`c${id}`, t)]),
);

function analysisOf(items: ChatMessage[], memos: ReturnType<typeof createAnalysisMemos>): Analysis<ChatMessage> {
  return analyze({
    items,
    tokens: items.map(count),
    hashes: items.map(messageHash),
    primingTokens: 3,
    countItem: count,
    wire: chatWire,
    codec,
    recall: true,
    memo: { memos, key: 'conversation', bytes: 0 },
  });
}

/** Checkpoints of `a` at some of its cuts, clearing every other result between the cut and the prefix. */
function checkpointsOf(a: Analysis<ChatMessage>, picks: number[]): Checkpoint[] {
  const starts = a.seg.units.map((u) => u.start).filter((s) => s > 0);
  const covered = [...new Set(picks.map((p) => starts[p % Math.max(1, starts.length)]).filter((s): s is number => s !== undefined))].sort((x, y) => x - y);
  return covered.map((c, k) => {
    const prefix = a.rest.length;
    const cleared = a.seg.kinds.flatMap((kind, i) => (kind === 'result' && i >= c && i < prefix && (i + k) % 2 === 0 ? [i] : []));
    return { covered: c, prefix, chainHash: a.links[prefix - 1]!, cleared, summary: `summary ${c}`, summaryTokens: 10, coveredTokens: 100, model: 'm', createdAt: k };
  });
}

/** What decide.ts works out for a request without a note: its candidates, the first that fits, its view. */
function decidedWhole(a: Analysis<ChatMessage>, record: ConversationRecord, trigger: number) {
  const all = candidates(a, record);
  const { choice, fits } = chooseBase(all, trigger);
  return { all, choice, fits, view: fits && choice.base.checkpoint ? buildView(a, choice.base.summary, choice.base) : null };
}

describe('the decision memo', () => {
  it('gives a request that extends the previous one the candidates, choice and view of deciding it whole', () => {
    let takenOver = 0;
    fc.assert(
      fc.property(
        fc.array(step, { minLength: 4, maxLength: 14 }),
        fc.array(fc.array(step, { maxLength: 3 }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 3 }),
        fc.double({ min: 0.3, max: 1.2, noNaN: true }),
        (opening, turns, picks, share) => {
          const memos = createAnalysisMemos({ entries: 4, bytes: 1 << 20 });
          let ids = 0;
          const items: ChatMessage[] = [{ role: 'system', content: 'rules' }, ...opening.flatMap((s) => s(ids++))];
          let a = analysisOf(items.slice(), memos);
          const record: ConversationRecord = { version: 1, updatedAt: 0, checkpoints: checkpointsOf(a, picks) };
          const rawOf = (x: Analysis<ChatMessage>) => candidates(x, null)[0]!.tokens;
          const trigger = Math.round(rawOf(a) * share);
          let whole = decidedWhole(a, record, trigger);
          a.memo.decision = noteOf(a, model, true, whole.all, whole.choice, whole.view);
          for (const turn of turns) {
            items.push(...turn.flatMap((s) => s(ids++)));
            a = analysisOf(items.slice(), memos);
            whole = decidedWhole(a, record, trigger);
            const note = a.prior?.decision;
            const taken = note && takeOver({ a, note, model, recall: true, matching: matchingCheckpoints(a, record), raw: rawOf(a), trigger, ownTrigger: trigger });
            if (taken) {
              takenOver++;
              expect(whole.fits).toBe(true);
              expect(taken.all.map((c) => [c.tokens, c.base.covered, [...c.base.cleared], c.base.summary])).toEqual(
                whole.all.map((c) => [c.tokens, c.base.covered, [...c.base.cleared], c.base.summary]),
              );
              expect(taken.all.indexOf(taken.choice)).toBe(whole.all.indexOf(whole.choice));
              expect(taken.view).toEqual(whole.view);
            }
            a.memo.decision = taken ? noteOf(a, model, true, taken.all, taken.choice, taken.view) : noteOf(a, model, true, whole.all, whole.choice, whole.view);
          }
        },
      ),
      { numRuns: 300, seed: 39 },
    );
    // The property is about something: most growths that stay under the trigger are taken over.
    expect(takenOver).toBeGreaterThan(50);
  });

  it('gives a branch of the previous request (part of its items, then others) the candidates, choice and view of deciding it whole', () => {
    let takenOver = 0;
    fc.assert(
      fc.property(
        fc.array(step, { minLength: 4, maxLength: 14 }),
        fc.array(step, { minLength: 1, maxLength: 6 }),
        fc.nat(),
        fc.array(step, { maxLength: 4 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 3 }),
        // Below 1: the client's own view is over the trigger, so that a checkpoint is chosen.
        fc.double({ min: 0.3, max: 0.95, noNaN: true }),
        (opening, tail, cut, others, picks, share) => {
          let ids = 0;
          const start: ChatMessage[] = [{ role: 'system', content: 'rules' }, ...opening.flatMap((s) => s(ids++))];
          const record: ConversationRecord = {
            version: 1,
            updatedAt: 0,
            checkpoints: checkpointsOf(analysisOf(start.slice(), createAnalysisMemos({ entries: 4, bytes: 1 << 20 })), picks),
          };
          const previous = [...start, ...tail.flatMap((s) => s(ids++))];
          const last = analysisOf(previous.slice(), createAnalysisMemos({ entries: 4, bytes: 1 << 20 }));
          const rawOf = (x: Analysis<ChatMessage>) => candidates(x, null)[0]!.tokens;
          const trigger = Math.round(rawOf(last) * share);
          const made = decidedWhole(last, record, trigger);
          const note = noteOf(last, model, true, made.all, made.choice, made.view);
          // Mostly a branch after what the checkpoints are about (the start), sometimes anywhere.
          const shared = cut % 4 === 0 ? 1 + (cut % previous.length) : start.length + (cut % (previous.length - start.length + 1));
          const trimmed = note && noteForPrefix(note, last.memo, shared);
          if (!trimmed) return;
          // The note is the one deciding the shared items alone makes: each candidate's cost, and the view chosen.
          const alone = analysisOf(previous.slice(0, shared), createAnalysisMemos({ entries: 4, bytes: 1 << 20 }));
          const aloneAll = candidates(alone, record);
          expect(aloneAll.map((c) => [identityOf(c.base.checkpoint), c.tokens])).toEqual(trimmed.candidates.map((c) => [c.checkpoint, c.tokens]));
          const chosen = aloneAll[trimmed.chosen]!.base;
          expect(buildView(alone, chosen.summary, chosen)).toEqual(trimmed.view);
          const branch = [...previous.slice(0, shared), ...others.flatMap((s) => s(ids++))];
          const a = analysisOf(branch, createAnalysisMemos({ entries: 4, bytes: 1 << 20 }));
          const whole = decidedWhole(a, record, trigger);
          const taken = takeOver({ a, note: trimmed, model, recall: true, matching: matchingCheckpoints(a, record), raw: rawOf(a), trigger, ownTrigger: trigger });
          if (!taken) return;
          if (shared < previous.length) takenOver++;
          expect(whole.fits).toBe(true);
          expect(taken.all.map((c) => [c.tokens, c.base.covered, [...c.base.cleared], c.base.summary])).toEqual(
            whole.all.map((c) => [c.tokens, c.base.covered, [...c.base.cleared], c.base.summary]),
          );
          expect(taken.all.indexOf(taken.choice)).toBe(whole.all.indexOf(whole.choice));
          expect(taken.view).toEqual(whole.view);
        },
      ),
      { numRuns: 600, seed: 39 },
    );
    // The property is about something: branches that keep what the checkpoints are about are taken over.
    expect(takenOver).toBeGreaterThan(30);
  });

  describe('is not taken over', () => {
    const memos = createAnalysisMemos({ entries: 4, bytes: 1 << 20 });
    const history: ChatMessage[] = [
      { role: 'system', content: 'rules' },
      { role: 'user', content: 'task' },
    ];
    for (let i = 0; i < 6; i++) history.push(call(`c${i}`), result(`c${i}`, 'x'.repeat(300)), { role: 'user', content: `next ${i}` });
    const first = analysisOf(history.slice(), memos);
    const [cp] = checkpointsOf(first, [3]);
    const record: ConversationRecord = { version: 1, updatedAt: 0, checkpoints: [cp!] };
    const raw = (a: Analysis<ChatMessage>) => candidates(a, null)[0]!.tokens;
    const trigger = raw(first) - 200;
    const made = decidedWhole(first, record, trigger);
    first.memo.decision = noteOf(first, model, true, made.all, made.choice, made.view);
    const next = (...added: ChatMessage[]) => {
      // Each attempt extends the first request (not the one before it).
      memos.remember('conversation', first.memo, 0);
      return analysisOf([...history, ...added], memos);
    };
    const attempt = (a: Analysis<ChatMessage>, over: Partial<Parameters<typeof takeOver<ChatMessage>>[0]> = {}) =>
      takeOver({ a, note: a.prior!.decision!, model, recall: true, matching: matchingCheckpoints(a, record), raw: raw(a), trigger, ownTrigger: trigger, ...over });

    it('(the baseline: a request that adds a user turn is)', () => {
      expect(made.view).not.toBeNull();
      expect(attempt(next({ role: 'user', content: 'more' }))).toBeDefined();
    });
    it('when a checkpoint was stored since', () => {
      const a = next({ role: 'user', content: 'more' });
      const [another] = checkpointsOf(first, [5]);
      expect(attempt(a, { matching: matchingCheckpoints(a, { ...record, checkpoints: [cp!, { ...another!, createdAt: 9 }] }) })).toBeUndefined();
    });
    it('when a new call names a cleared result of the history again (its stub would name another tool)', () => {
      const reused = cp!.cleared![0]!;
      const id = (first.rest[reused] as { tool_call_id: string }).tool_call_id;
      expect(attempt(next({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'other', arguments: '{}' } }] }))).toBeUndefined();
    });
    it('for another model, another recall offer, or counts that moved', () => {
      const a = next({ role: 'user', content: 'more' });
      expect(attempt(a, { model: { ...model } })).toBeUndefined();
      expect(attempt(a, { recall: false })).toBeUndefined();
      expect(attempt(a, { raw: raw(a) + 1 })).toBeUndefined();
    });
    it('when the view no longer fits under the trigger', () => {
      expect(attempt(next({ role: 'user', content: 'y'.repeat(4000) }))).toBeUndefined();
    });
    it('by a branch that takes away a call naming a cleared result again (its stub would name another tool)', () => {
      const id = (first.rest[cp!.cleared![0]!] as { tool_call_id: string }).tool_call_id;
      const noteAfter = (...added: ChatMessage[]) => {
        const a = analysisOf([...history, ...added], createAnalysisMemos({ entries: 4, bytes: 1 << 20 }));
        const whole = decidedWhole(a, record, trigger);
        return { a, note: noteOf(a, model, true, whole.all, whole.choice, whole.view)! };
      };
      const plain = noteAfter(call('c9'), result('c9', 'y'), { role: 'user', content: 'more' });
      expect(noteForPrefix(plain.note, plain.a.memo, history.length)).toBeDefined();
      const renaming = noteAfter(
        { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'other', arguments: '{}' } }] },
        { role: 'user', content: 'more' },
      );
      expect(noteForPrefix(renaming.note, renaming.a.memo, history.length)).toBeUndefined();
    });
  });
});
