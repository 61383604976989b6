import { describe, expect, it } from 'vitest';
import { endsWithBlankLine, sseBoundary } from './sse-boundary.js';

describe('endsWithBlankLine', () => {
  it.each(['data: x\n\n', 'data: x\r\n\r\n', 'data: x\r\r', ': ping\n\n', 'data: x\r\n\n'])('%j ends an event', (text) => {
    expect(endsWithBlankLine(text)).toBe(true);
  });
  it.each(['data: x', 'data: x\n', 'data: x\r\n', 'data: {"a":1}\ndata: {"b"', ''])('%j does not', (text) => {
    expect(endsWithBlankLine(text)).toBe(false);
  });
});

describe('sseBoundary', () => {
  it('is at a boundary before any byte and after each complete event', () => {
    const b = sseBoundary();
    expect(b.atBoundary()).toBe(true);
    b.feed(Buffer.from('data: {"choices":[]}\n\n'));
    expect(b.atBoundary()).toBe(true);
    b.feed(Buffer.from('data: {"cho'));
    expect(b.atBoundary()).toBe(false);
  });

  it('sees a blank line split across chunks, however small', () => {
    const b = sseBoundary();
    for (const piece of ['data: 1', '\r', '\n', '\r', '\n']) b.feed(Buffer.from(piece));
    expect(b.atBoundary()).toBe(true);
    b.feed(Buffer.from('d'));
    expect(b.atBoundary()).toBe(false);
  });
});
