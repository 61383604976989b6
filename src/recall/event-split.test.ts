import { describe, expect, it } from 'vitest';
import { eventSplitter } from './event-split.js';

describe('eventSplitter', () => {
  it('says where each event ends, across chunks, in the bytes fed', () => {
    const s = eventSplitter();
    const a = s.feed(Buffer.from('data: one\n\ndata: tw'));
    expect(a.events.map((e) => [e.event.data, e.end])).toEqual([['one', 11]]);
    s.keep(a.data, 11);
    const b = s.feed(Buffer.from('o\n\ndata: é\n\n'));
    expect(b.data.toString()).toBe('data: two\n\ndata: é\n\n');
    expect(b.events.map((e) => [e.event.data, e.end])).toEqual([
      ['two', 11],
      ['é', Buffer.byteLength('data: two\n\ndata: é\n\n')],
    ]);
    s.keep(b.data, b.data.length);
    expect(s.rest()).toHaveLength(0);
  });
});
