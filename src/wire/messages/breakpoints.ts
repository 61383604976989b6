import { withMember } from '../../body/splice.js';
import type { AnthropicMessage, ContentBlock } from './types.js';

// Anthropic caches a prompt at its `cache_control` breakpoints (at most 4 a request; docs/anthropic.md).
// A view recap writes keeps the client's own breakpoints on the blocks it keeps; one on an evicted
// message would be gone with it. Such a lost breakpoint moves to the end of recap's summary (the
// first message of every view until the next cut, so the most stable part of the messages) when it
// pays: then the turns after a cut read tools, system and summary from the cache instead of the
// tools and system alone. A view never has more breakpoints than the client sent, nor more than 4:
// should a client send more (Anthropic would refuse its own request as well), the oldest ones in
// `messages` go, since the newest cache the longest prefix. Everything else stays byte for byte.

export const MAX_BREAKPOINTS = 4;
/** Anthropic caches no shorter prefix (Sonnet and Opus 4; Haiku and Opus 4.5 need more): a mark before it caches nothing. */
export const MIN_CACHED_TOKENS = 1024;
/** Anthropic's cache prices as multiples of the input price: reads, and writes by the mark's lifetime. */
const READ = 0.1;
const WRITE_5M = 1.25;
const WRITE_1H = 2;

const hasBreakpoint = (v: unknown): boolean => v !== null && typeof v === 'object' && (v as { cache_control?: unknown }).cache_control != null;

export function countBreakpoints(items: unknown): number {
  return Array.isArray(items) ? items.filter(hasBreakpoint).length : 0;
}

const messageBreakpoints = (m: AnthropicMessage): number => countBreakpoints(m.content);
const viewBreakpoints = (view: readonly AnthropicMessage[]): number => view.reduce((n, m) => n + messageBreakpoints(m), 0);

/** `view` with its oldest message breakpoints removed so that, with `outside` (tools and system), at most 4 remain. */
export function withinBreakpointLimit(view: readonly AnthropicMessage[], outside: number): readonly AnthropicMessage[] {
  let excess = outside + viewBreakpoints(view) - MAX_BREAKPOINTS;
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

export interface SummaryMarkCost {
  /** Estimated tokens of the prompt through the summary (tools, system, the summary). */
  prefixTokens: number;
  /** A later breakpoint in the same request writes those tokens anyway. */
  writtenAnyway: boolean;
  /** The mark's lifetime: a 1-hour write costs 2× the input price, a 5-minute one 1.25×. */
  hour: boolean;
  /** Calls expected to read it before the next cut. */
  calls: number;
}

/**
 * Whether a breakpoint at the end of the summary pays: the prefix must be long enough to be cached
 * at all, and what writing it costs above the input price must come back in the reads expected
 * (each reads it at 0.1× instead of 1×). A 5-minute mark pays from the first read; a 1-hour one
 * from the second; a mark whose tokens a later breakpoint writes anyway costs nothing.
 */
export function summaryMarkPays(c: SummaryMarkCost): boolean {
  if (c.prefixTokens < MIN_CACHED_TOKENS) return false;
  if (c.writtenAnyway) return true;
  return c.calls * (1 - READ) >= (c.hour ? WRITE_1H : WRITE_5M) - 1;
}

export interface BreakpointPlacement {
  /** Breakpoints on tools and system, which a view never changes. */
  outside: number;
  /** Breakpoints on the client's own messages. */
  clientMessages: number;
  /** The client's newest `cache_control` value: a mark of its own on the summary copies it. */
  newest: unknown;
  /** The client's last `cache_control` value on tools or system. */
  lastOutside: unknown;
  /** recap's summary is the view's first message (its prefix's estimated tokens, the calls expected to read it); null: no summary. */
  summary: { prefixTokens: number; calls: number } | null;
}

/**
 * The view's breakpoints: the client's on what it keeps (never more than 4), and one the client lost
 * to eviction on the end of recap's summary when there is room for it under the client's own count
 * and under 4, and it pays (summaryMarkPays). The mark copies the `cache_control` of the breakpoint
 * after it (else of the last one before it, else the client's newest), so that its lifetime keeps
 * Anthropic's order: a longer-lived breakpoint never follows a shorter-lived one.
 */
export function placeBreakpoints(view: readonly AnthropicMessage[], p: BreakpointPlacement): readonly AnthropicMessage[] {
  const limited = withinBreakpointLimit(view, p.outside);
  const first = limited[0];
  if (!p.summary || !first || !Array.isArray(first.content) || first.content.length === 0) return limited;
  const kept = viewBreakpoints(limited);
  if (p.outside + kept >= Math.min(MAX_BREAKPOINTS, p.outside + p.clientMessages)) return limited;
  const after = limited.flatMap((m) => (Array.isArray(m.content) ? m.content.filter(hasBreakpoint) : []))[0] as { cache_control: unknown } | undefined;
  const control = after?.cache_control ?? p.lastOutside ?? p.newest;
  const hour = (control as { ttl?: unknown } | null)?.ttl === '1h';
  if (!summaryMarkPays({ prefixTokens: p.summary.prefixTokens, writtenAnyway: after !== undefined, hour, calls: p.summary.calls })) return limited;
  const content = first.content.map((b, i) => (i === first.content.length - 1 ? { ...b, cache_control: control } : b));
  return [{ ...first, content }, ...limited.slice(1)];
}
