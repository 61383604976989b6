import { describe, expect, it } from 'vitest';
import { countBreakpoints, withinBreakpointLimit } from './breakpoints.js';
import type { AnthropicMessage } from './types.js';

const cc = { type: 'ephemeral' };
const msg = (n: number, marked: boolean): AnthropicMessage => ({ role: 'user', content: [{ type: 'text', text: `m${n}`, ...(marked ? { cache_control: cc } : {}) }] });
const total = (view: readonly AnthropicMessage[]) => view.reduce((n, m) => n + countBreakpoints(m.content), 0);

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
