import { withMember } from '../../body/splice.js';
import type { AnthropicMessage, ContentBlock } from './types.js';

// Anthropic refuses a request with more than 4 `cache_control` breakpoints. A view recap writes
// keeps the client's own breakpoints on the blocks it keeps (those on evicted messages go with
// them, and recap's summary carries none), so it never has more than the client sent; should the
// client have sent more than 4 (its own request would be refused as well), a view drops the
// oldest ones in `messages` until 4 remain: the newest breakpoints cache the longest prefix.

export const MAX_BREAKPOINTS = 4;

const hasBreakpoint = (v: unknown): boolean => v !== null && typeof v === 'object' && (v as { cache_control?: unknown }).cache_control != null;

export function countBreakpoints(items: unknown): number {
  return Array.isArray(items) ? items.filter(hasBreakpoint).length : 0;
}

const messageBreakpoints = (m: AnthropicMessage): number => countBreakpoints(m.content);

/** `view` with its oldest message breakpoints removed so that, with `outside` (tools and system), at most 4 remain. */
export function withinBreakpointLimit(view: readonly AnthropicMessage[], outside: number): readonly AnthropicMessage[] {
  let excess = outside + view.reduce((n, m) => n + messageBreakpoints(m), 0) - MAX_BREAKPOINTS;
  if (excess <= 0) return view;
  return view.map((m) => {
    if (excess <= 0 || messageBreakpoints(m) === 0 || !Array.isArray(m.content)) return m;
    const content = m.content.map((b: ContentBlock) => {
      if (excess <= 0 || !hasBreakpoint(b)) return b;
      excess--;
      const { cache_control: _dropped, ...rest } = b;
      return rest;
    });
    return withMember(m, 'content', content);
  });
}
