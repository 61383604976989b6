import type { EventSourceMessage } from 'eventsource-parser';
import { expect, it } from 'vitest';
import { documentMembers } from '../body/scan.js';
import { createSeenItems } from '../body/seen-items.js';
import type { NeutralItem } from '../compaction/items.js';
import { errors, RecapError } from '../errors.js';
import { judgeStreamEnd } from '../http/stream-end.js';
import { noPause } from '../slicing/slicer.js';
import type { ParsedRequest, WireFormat } from './format.js';

// The wire-format contract, run over every registered format (formats.test.ts), in the manner of
// the stores' shared suite (store/store.case.ts): what the request path relies on of a format,
// whichever API it speaks. A format's fixture (fixture.case.ts in its folder) is all it adds.

/** One format's requests and streams, in its own API's shape. */
export interface FormatFixture {
  /**
   * A request body as a client writes it: a pinned instruction, a user turn, a tool call and its
   * result, and members recap never reads, one of them a number as only its bytes say it
   * (`1.0e0`, say: rule 12 keeps it so).
   */
  body: string;
  /** What the engine sees of its items, in order. */
  kinds: NeutralItem['kind'][];
  /** Top-level members a view may rewrite besides the items (where the API keeps instructions apart). */
  rewritten?: string[];
  /** A body recap refuses with a 400, and the `param` it names. */
  invalid: { body: string; param: string | null };
  /** A stream's events, the last one ending it successfully; `failure`: an event that fails it. */
  stream: { events: EventSourceMessage[]; failure: EventSourceMessage };
}

function sse(events: readonly EventSourceMessage[]): Buffer {
  return Buffer.from(events.map((e) => `${e.event ? `event: ${e.event}\n` : ''}data: ${e.data}\n\n`).join(''));
}

async function read<T, P extends ParsedRequest>(format: WireFormat<T, P>, body: string): Promise<P> {
  return format.read(Buffer.from(body), noPause, { seen: createSeenItems(1 << 20) });
}

/** Registers the contract's tests for `format` (inside a describe block). */
export function runFormatCases<T, P extends ParsedRequest>(format: WireFormat<T, P>, fixture: FormatFixture): void {
  it('parses a request: the model it names and its items, as the engine sees them', async () => {
    const parsed = await read(format, fixture.body);
    expect(parsed.body.model).toBe(JSON.parse(fixture.body).model);
    const items = format.compactable(parsed);
    expect(items).not.toBeNull();
    expect(items!.map((item) => format.items.describe(item).kind)).toEqual(fixture.kinds);
    expect(format.opening(parsed, items!).length).toBeGreaterThan(0);
  });

  it("refuses a body it cannot read with recap's 400, in its own error shape", async () => {
    const refused = await read(format, fixture.invalid.body).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(RecapError);
    expect((refused as RecapError).status).toBe(400);
    expect((refused as RecapError).param).toBe(fixture.invalid.param);
    const err = errors.invalidRequest('bad field', 'x');
    const shape = format.errorBody(err);
    expect(JSON.parse(shape)).toBeTypeOf('object');
    expect(shape).toContain('bad field');
  });

  it('round-trips its items: the same view spliced back reads as the same request', async () => {
    const parsed = await read(format, fixture.body);
    const items = format.compactable(parsed)!;
    const again = await read(format, format.withView(parsed, items).toString());
    expect(again.body).toEqual(parsed.body);
    expect(format.compactable(again)).toEqual(items);
  });

  it("splices a view into the client's bytes: every other member keeps its bytes, in order (rule 12)", async () => {
    const parsed = await read(format, fixture.body);
    const items = format.compactable(parsed)!;
    // A summary in place of everything but the newest item: what a compaction forwards.
    const view = [format.items.summaryItem('summary text'), ...items.slice(-1)];
    const out = format.withView(parsed, view);
    const raw = Buffer.from(fixture.body);
    const changes = new Set([format.itemsKey, ...(fixture.rewritten ?? [])]);
    const kept = documentMembers(raw).filter((m) => !changes.has(m.key));
    expect(kept.length).toBeGreaterThan(1);
    let from = 0;
    for (const member of kept) {
      const bytes = raw.subarray(member.keyStart, member.value.end);
      const at = out.indexOf(bytes, from);
      expect(at, `${member.key} keeps its bytes`).toBeGreaterThanOrEqual(0);
      from = at + bytes.length;
    }
    const spliced = await read(format, out.toString());
    expect(format.items.sealedTextOf(format.compactable(spliced)![0]!)).toBe('summary text');
  });

  it('writes a cleared tool result the engine still reads as a result', async () => {
    const parsed = await read(format, fixture.body);
    const items = format.compactable(parsed)!;
    const result = items.find((item) => format.items.describe(item).kind === 'result');
    expect(result).toBeDefined();
    const cleared = format.items.cleared(result!, 'read_log', true);
    expect(format.items.describe(cleared)).toEqual(format.items.describe(result!));
  });

  it('tells a stream that ended as its API ends one from one that failed or broke off', () => {
    const { events, failure } = fixture.stream;
    const whole = judgeStreamEnd(format.streamEnd);
    whole.feed(sse(events));
    expect(whole.succeeded()).toBe(true);
    const cut = judgeStreamEnd(format.streamEnd);
    cut.feed(sse(events.slice(0, -1)));
    expect(cut.succeeded()).toBe(false);
    const failed = judgeStreamEnd(format.streamEnd);
    failed.feed(sse([...events.slice(0, -1), failure, events.at(-1)!]));
    expect(failed.succeeded()).toBe(false);
  });
}
