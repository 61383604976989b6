import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseSliced } from './parse-sliced.js';
import { noPause } from '../slicing/slicer.js';
import { matchOnArrival } from './items-on-arrival.js';
import { parsedBytesEstimate } from './parsed-size.js';
import { createSeenItems, NOT_YET, type SeenItems } from './seen-items.js';

// Items found while a body arrives are taken by the parse only where they were found, and only
// when their bytes are the kept ones: however the body is cut into chunks, the parse gives
// JSON.parse's value, with the kept objects for the items whose bytes are unchanged.

const message = (i: number, text = `step ${i} `) => JSON.stringify({ role: i % 2 ? 'tool' : 'assistant', content: text.repeat(1 + (i % 7) * 9) });

function keep(seen: SeenItems, texts: readonly string[]): Map<string, object> {
  const kept = new Map<string, object>();
  const buf = Buffer.from(`[${texts.join(',')}]`);
  let at = 1;
  for (const t of texts) {
    const end = at + Buffer.byteLength(t);
    const item = JSON.parse(t) as object;
    seen.keep(buf, at, end, item, parsedBytesEstimate(buf, at, end));
    kept.set(t, item);
    at = end + 1;
  }
  return kept;
}

/** Delivers `body` as a socket would, in chunks cut at `cuts`, into one buffer of its length. */
function arrive(body: Buffer, cuts: readonly number[], advance: (buf: Buffer, arrived: number) => void): Buffer {
  const buf = Buffer.alloc(body.length, 0x7b);
  const ends = [...new Set([...cuts.map((c) => c % (body.length + 1)), body.length])].sort((a, b) => a - b);
  let from = 0;
  for (const end of ends) {
    if (end <= from) continue;
    body.copy(buf, from, from, end);
    from = end;
    advance(buf, end);
  }
  return buf;
}

async function parseArrived(seen: SeenItems, body: string, cuts: readonly number[]) {
  const arriving = matchOnArrival(seen, 'messages');
  const buf = arrive(Buffer.from(body), cuts, arriving.advance);
  return (await parseSliced(buf, noPause, { items: { key: 'messages', seen, arrived: arriving } })).value as { messages: object[] };
}

describe('matchOnArrival', () => {
  const history = Array.from({ length: 12 }, (_, i) => message(i));

  it("gives the parse the kept items and JSON.parse's value, however the body arrives", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(), { maxLength: 40 }), fc.nat({ max: 11 }), fc.constantFrom('', ' ', '\n  '), async (cuts, edited, ws) => {
        const seen = createSeenItems(1 << 22);
        const kept = keep(seen, history);
        const sent = history.map((t, i) => (i === edited ? message(i, 'changed ') : t));
        const body = `{${ws}"model":"m",${ws}"tools":[{"type":"function","function":{"name":"x"}}],"messages":${ws}[${sent.join(`,${ws}`)}]${ws},"n":12${ws}}`;
        const parsed = await parseArrived(seen, body, cuts);
        expect(parsed).toEqual(JSON.parse(body));
        parsed.messages.forEach((m, i) => {
          if (i === edited) expect(m).not.toBe(kept.get(history[i]!));
          else expect(m).toBe(kept.get(history[i]!));
        });
      }),
      { numRuns: 200 },
    );
  });

  it('never offers an item whose changed byte arrives after its first bytes', () => {
    const seen = createSeenItems(1 << 22);
    const text = message(3);
    keep(seen, [text]);
    const changed = `${text.slice(0, -4)}X${text.slice(-3)}`;
    const body = Buffer.from(`{"messages":[${changed}]}`);
    const arriving = matchOnArrival(seen, 'messages');
    // Everything but the changed byte and what follows it: not decided yet.
    arrive(body, [body.length - 6], arriving.advance);
    expect(arriving.take(body.indexOf('{"role"'))).toBeUndefined();
  });

  it('finds nothing in a body that is not an object holding the items array, and leaves the rest to the parse', async () => {
    const seen = createSeenItems(1 << 22);
    keep(seen, history);
    for (const body of [`[${history[0]}]`, `{"messages":${history[0]}}`, `{"input":[${history[0]}]}`, `{"a" 1,"messages":[${history[0]}]}`]) {
      const arriving = matchOnArrival(seen, 'messages');
      const buf = Buffer.from(body);
      arrive(buf, [3, 9, 20], arriving.advance);
      for (let pos = 0; pos < buf.length; pos++) expect(arriving.take(pos)).toBeUndefined();
    }
  });

  it('stops at the first item it does not hold, and the parse takes the rest from the cache itself', async () => {
    const seen = createSeenItems(1 << 22);
    const kept = keep(seen, history);
    const body = `{"messages":[${history[0]},${message(99)},${history[1]}]}`;
    const arriving = matchOnArrival(seen, 'messages');
    const buf = arrive(Buffer.from(body), [], arriving.advance);
    expect(arriving.take(buf.indexOf(history[1]!))).toBeUndefined();
    const { value } = await parseSliced(buf, noPause, { items: { key: 'messages', seen, arrived: matchOnArrival(seen, 'messages') } });
    expect((value as { messages: object[] }).messages[2]).toBe(kept.get(history[1]!));
  });

  it('scans a long member before the items a bounded number of times, however finely it arrives', () => {
    const seen = createSeenItems(1 << 22);
    keep(seen, history);
    const body = Buffer.from(`{"instructions":${JSON.stringify('x'.repeat(200_000))},"messages":[${history.join(',')}]}`);
    const cuts = Array.from({ length: Math.ceil(body.length / 97) }, (_, i) => i * 97);
    const arriving = matchOnArrival(seen, 'messages');
    // Each advance that scans takes one view of the arrived bytes.
    let scans = 0;
    const counted = (buf: Buffer, arrived: number) => {
      const subarray = buf.subarray.bind(buf);
      buf.subarray = (start?: number, end?: number) => (scans++, subarray(start, end));
      arriving.advance(buf, arrived);
      buf.subarray = subarray;
    };
    arrive(body, cuts, counted);
    // ~2,060 chunks of the member, ~85 of the items: the member is scanned again only as it doubles.
    expect(scans).toBeLessThan(200);
    expect(arriving.take(body.indexOf(history[0]!))).toBeDefined();
    expect(arriving.take(body.indexOf(history[11]!))).toBeDefined();
  });
});

describe('SeenItems.match on a body still arriving', () => {
  it('waits for the bytes that decide, and answers as find once they are in', () => {
    const seen = createSeenItems(1 << 22);
    const text = message(5);
    const [item] = [...keep(seen, [text]).values()];
    const body = Buffer.from(`${text},`);
    for (let arrived = 1; arrived < text.length; arrived += 37) expect(seen.match(body, 0, arrived)).toBe(NOT_YET);
    expect(seen.match(body, 0, text.length)).toMatchObject({ entry: { item }, end: text.length });
    // A difference among the arrived bytes decides at once.
    const other = Buffer.from(`${text.slice(0, 200)}Y${text.slice(201)},`);
    expect(seen.match(other, 0, 300)).toBeUndefined();
    // A whole body's end decides too: the item cannot be longer than what is there.
    expect(seen.match(body.subarray(0, 50), 0, 50)).toBeUndefined();
  });
});
