import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { noPause } from '../slicing/slicer.js';
import { equalUpTo, type ItemRun } from './item-runs.js';
import { matchOnArrival } from './items-on-arrival.js';
import { parseSliced } from './parse-sliced.js';
import { createSeenItems, type SeenItems } from './seen-items.js';

// A request that starts with the items an earlier one sent takes them over as one run: the same
// objects, as many as its bytes equal the kept ones, whatever chunks the body arrives in, with
// what the earlier request noted about them; no changed byte is taken over.

const message = (i: number, text = `turn ${i} `) => JSON.stringify({ role: i % 2 ? 'assistant' : 'user', content: text.repeat(1 + (i % 5) * 7) });
const body = (texts: readonly string[], ws = '') => Buffer.from(`{"model":"m",${ws}"messages":${ws}[${texts.join(`,${ws}`)}]${ws},"n":1}`);

/** Parses `buf` as the request path does, the body arriving in chunks cut at `cuts`; `keepLater` takes the keeping of its new items. */
async function read(seen: SeenItems, buf: Buffer, cuts: readonly number[] = [], keepLater?: (keep: () => Promise<void>) => void) {
  const arriving = matchOnArrival(seen, 'messages');
  const into = Buffer.alloc(buf.length, 0x7b);
  let from = 0;
  for (const end of [...new Set([...cuts.map((c) => c % (buf.length + 1)), buf.length])].sort((a, b) => a - b)) {
    if (end <= from) continue;
    buf.copy(into, from, from, end);
    from = end;
    arriving.advance(into, end);
  }
  const doc = await parseSliced(into, noPause, { items: { key: 'messages', seen, arrived: arriving, keepLater } });
  return { doc, messages: (doc.value as { messages: object[] }).messages };
}

describe('runs of items', () => {
  const history = Array.from({ length: 30 }, (_, i) => message(i));

  it('takes over as many leading items as equal the run, the same objects, however the body arrives', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.nat(), { maxLength: 30 }),
        fc.nat({ max: 29 }),
        fc.option(fc.nat({ max: 29 }), { nil: undefined }),
        fc.constantFrom('', ' ', '\n  '),
        async (cuts, cut, edited, ws) => {
          const seen = createSeenItems(1 << 24);
          const first = await read(seen, body(history.slice(0, cut + 1), ws));
          const notes = { hashes: 'of the first request' };
          first.doc.run?.note(notes, history);
          const sent = [...history.slice(0, cut + 1), message(99)].map((t, i) => (i === edited ? message(i, 'changed ') : t));
          const buf = body(sent, ws);
          const second = await read(seen, buf, cuts);
          expect(second.messages).toEqual((JSON.parse(buf.toString()) as { messages: object[] }).messages);
          const unchanged = edited === undefined || edited > cut ? cut + 1 : edited;
          expect(second.doc.run?.taken).toBe(unchanged);
          second.messages.slice(0, unchanged).forEach((m, i) => expect(m).toBe(first.messages[i]));
          expect(second.doc.run?.earlier(notes)).toBe(unchanged > 0 ? history : undefined);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('takes the run that goes furthest among conversations that open alike', async () => {
    const seen = createSeenItems(1 << 24);
    const branches = [0, 1, 2].map((b) => [history[0]!, ...Array.from({ length: 10 }, (_, i) => message(100 * b + i + 1))]);
    for (const b of branches) await read(seen, body(b));
    for (const [b, texts] of branches.entries()) {
      const { doc } = await read(seen, body([...texts, message(500 + b)]), [40, 300, 301]);
      expect(doc.run?.taken).toBe(texts.length);
    }
  });

  it('keeps the new items and their run only when the request path does it, with the notes made after the parse', async () => {
    const seen = createSeenItems(1 << 24);
    const later: (() => Promise<void>)[] = [];
    const first = await read(seen, body(history.slice(0, 10)), [], (keep) => later.push(keep));
    expect(later).toHaveLength(1);
    const before = await read(seen, body(history.slice(0, 11)));
    expect(before.doc.run?.taken ?? 0).toBe(0);
    expect(before.messages[0]).not.toBe(first.messages[0]);

    const fresh = createSeenItems(1 << 24);
    const deferred: (() => Promise<void>)[] = [];
    const made = await read(fresh, body(history.slice(0, 10)), [], (keep) => deferred.push(keep));
    const counts = { counts: 'noted once the request went upstream' };
    const noted = history.slice(0, 10);
    made.doc.run?.note(counts, noted);
    for (const keep of deferred) await keep();
    const next = await read(fresh, body(history.slice(0, 11)));
    expect(next.doc.run?.taken).toBe(10);
    next.messages.slice(0, 10).forEach((m, i) => expect(m).toBe(made.messages[i]));
    expect(next.doc.run?.earlier(counts)).toBe(noted);
  });

  it('takes over a run whose new items repeat one another, kept after the parse', async () => {
    const seen = createSeenItems(1 << 24);
    const same = message(7);
    const later: (() => Promise<void>)[] = [];
    const first = await read(seen, body([same, same]), [], (keep) => later.push(keep));
    for (const keep of later) await keep();
    const next = await read(seen, body([same, same, message(8)]));
    expect(next.doc.run?.taken).toBe(2);
    next.messages.slice(0, 2).forEach((m, i) => expect(m).toBe(first.messages[i]));
  });

  it('keeps no run a request would hold past its share of the cache', async () => {
    const seen = createSeenItems(64 * 1024);
    const long = Array.from({ length: 40 }, (_, i) => message(i, 'a longer turn of text '));
    await read(seen, body(long));
    const { doc } = await read(seen, body([...long, message(99)]));
    expect(doc.run?.taken ?? 0).toBe(0);
    expect(seen.bytes).toBeLessThanOrEqual(64 * 1024);
  });
});

describe('equalUpTo', () => {
  /** A run of items of these lengths (the bytes only: what equalUpTo reads). */
  function runOf(lengths: readonly number[]): ItemRun {
    const ends = new Int32Array(lengths.length);
    const starts = new Int32Array(lengths.length);
    let at = 0;
    lengths.forEach((n, i) => {
      starts[i] = at;
      at += n;
      ends[i] = at;
    });
    const bytes = Buffer.from(Array.from({ length: at }, (_, i) => 97 + (i % 26)));
    return { bytes, starts, ends, items: [], sizes: new Float64Array(lengths.length + 1), first: { item: {}, size: 0 }, last: undefined, size: 0, notes: new Map() };
  }

  it('is the end of the last item whose bytes all equal, from any point known to equal, up to any point', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 60 }), fc.nat(), fc.nat(), fc.nat(), fc.nat({ max: 5 }), (lengths, a, b, changed, base) => {
        const run = runOf(lengths);
        const total = run.bytes.length;
        const at = changed % total;
        const from = Math.min(a % (total + 1), at);
        const to = Math.max(from, b % (total + 1));
        const buf = Buffer.concat([Buffer.alloc(base, 32), run.bytes]);
        buf[base + at] = 48;
        // What a byte-by-byte reading gives: the last item ending within [from, to] before the changed byte.
        let expected = from;
        for (const end of run.ends) if (end > from && end <= to && end <= at) expected = end;
        expect(equalUpTo(run, buf, base, from, to)).toBe(expected);
      }),
      { numRuns: 3000 },
    );
  });
});
