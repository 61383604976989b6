import { describe, expect, it } from 'vitest';
import { type BreakpointPlacement, countBreakpoints, MIN_CACHED_TOKENS, placeBreakpoints, summaryMarkPays, withinBreakpointLimit } from './breakpoints.js';
import type { AnthropicMessage } from './types.js';

const cc = { type: 'ephemeral' };
const hour = { type: 'ephemeral', ttl: '1h' };
const msg = (n: number, marked: boolean | object): AnthropicMessage => ({
  role: 'user',
  content: [{ type: 'text', text: `m${n}`, ...(marked ? { cache_control: marked === true ? cc : marked } : {}) }],
});
const summary: AnthropicMessage = { role: 'user', content: [{ type: 'text', text: '[recap:summary v1] …' }] };
const total = (view: readonly AnthropicMessage[]) => view.reduce((n, m) => n + countBreakpoints(m.content), 0);
const summaryMark = (view: readonly AnthropicMessage[]) => (view[0]!.content as { cache_control?: unknown }[]).at(-1)!.cache_control;
const placement = (p: Partial<BreakpointPlacement>): BreakpointPlacement => ({
  outside: 1,
  clientMessages: 2,
  newest: cc,
  lastOutside: cc,
  summary: { prefixTokens: 5_000, calls: 1 },
  ...p,
});

describe('cache_control breakpoints in a view', () => {
  it('leaves a view within the limit as it is (the same objects)', () => {
    const view = [msg(1, true), msg(2, false), msg(3, true)];
    expect(withinBreakpointLimit(view, 2)).toBe(view);
  });

  it('drops the oldest message breakpoints past 4, keeping the newest', () => {
    const view = [msg(1, true), msg(2, true), msg(3, true), msg(4, true)];
    const out = withinBreakpointLimit(view, 2);
    expect(total(out)).toBe(2);
    expect(out.map((m) => countBreakpoints(m.content))).toEqual([0, 0, 1, 1]);
    expect(out[2]).toBe(view[2]);
    expect(out[0]!.content).toEqual([{ type: 'text', text: 'm1' }]);
  });
});

describe('whether a breakpoint at the end of the summary pays (hand-worked)', () => {
  it('never below the shortest prefix Anthropic caches', () => {
    expect(summaryMarkPays({ prefixTokens: MIN_CACHED_TOKENS - 1, writtenAnyway: true, hour: false, calls: 50 })).toBe(false);
  });
  it('a 5-minute write (0.25× above input) pays back with one read (0.9× saved)', () => {
    expect(summaryMarkPays({ prefixTokens: 3_000, writtenAnyway: false, hour: false, calls: 1 })).toBe(true);
  });
  it('a 1-hour write (1× above input) needs two reads', () => {
    expect(summaryMarkPays({ prefixTokens: 3_000, writtenAnyway: false, hour: true, calls: 1 })).toBe(false);
    expect(summaryMarkPays({ prefixTokens: 3_000, writtenAnyway: false, hour: true, calls: 2 })).toBe(true);
  });
  it('costs nothing when a later breakpoint of the same request writes those tokens anyway', () => {
    expect(summaryMarkPays({ prefixTokens: 3_000, writtenAnyway: true, hour: true, calls: 1 })).toBe(true);
  });
});

describe('placing the breakpoints of a view with recap summary', () => {
  it('moves a breakpoint the client lost to eviction to the end of the summary, with the lifetime of the breakpoint after it', () => {
    // The client marked system, an evicted message and its newest one (3); the view kept the newest.
    const view = [summary, msg(5, false), msg(6, hour)];
    const out = placeBreakpoints(view, placement({ clientMessages: 2, lastOutside: hour }));
    expect(summaryMark(out)).toEqual(hour);
    expect(1 + total(out)).toBe(3);
    expect(out.slice(1)).toEqual(view.slice(1));
    expect(out[1]).toBe(view[1]);
    expect(view[0]!.content).toEqual(summary.content);
  });

  it('adds nothing when the client lost none: never above the client’s own count', () => {
    const view = [summary, msg(5, false), msg(6, true)];
    expect(placeBreakpoints(view, placement({ clientMessages: 1 }))).toBe(view);
  });

  it('adds nothing past 4, however many the client lost', () => {
    const view = [summary, msg(5, true)];
    expect(total(placeBreakpoints(view, placement({ outside: 3, clientMessages: 3 })))).toBe(1);
  });

  it('adds nothing on a prefix too short to be cached', () => {
    const view = [summary, msg(5, true)];
    expect(placeBreakpoints(view, placement({ summary: { prefixTokens: 600, calls: 1 } }))).toBe(view);
  });

  it('without a later breakpoint, takes the lifetime of the last one before it, and leaves out a 1-hour write one read would not pay back', () => {
    const view = [summary, msg(5, false)];
    expect(summaryMark(placeBreakpoints(view, placement({ clientMessages: 1, lastOutside: cc })))).toEqual(cc);
    expect(placeBreakpoints(view, placement({ clientMessages: 1, lastOutside: hour }))).toBe(view);
    expect(summaryMark(placeBreakpoints(view, placement({ clientMessages: 1, outside: 0, lastOutside: undefined, newest: cc })))).toEqual(cc);
  });

  it('leaves a view without a summary to the limit alone', () => {
    const view = [msg(1, false), msg(2, true)];
    expect(placeBreakpoints(view, placement({ summary: null, clientMessages: 3 }))).toBe(view);
  });

  it('never has more breakpoints than the client sent, nor more than 4', () => {
    for (let outside = 0; outside <= 4; outside++) {
      for (let clientMessages = 0; clientMessages <= 5; clientMessages++) {
        for (let kept = 0; kept <= Math.min(clientMessages, 3); kept++) {
          const view = [summary, ...Array.from({ length: 3 }, (_, i) => msg(i, i < kept))];
          const out = placeBreakpoints(view, placement({ outside, clientMessages }));
          expect(outside + total(out)).toBeLessThanOrEqual(Math.max(Math.min(4, outside + clientMessages), outside));
          expect(outside + total(out)).toBeLessThanOrEqual(Math.max(4, outside));
        }
      }
    }
  });
});
