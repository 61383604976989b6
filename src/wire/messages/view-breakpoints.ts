import { SUMMARY_MARKER } from '../../compaction/summary-message.js';
import { countBreakpoints, MIN_CACHED_TOKENS, placeBreakpoints, withinBreakpointLimit } from './breakpoints.js';
import { blocksOf } from './items.js';
import type { AnthropicMessage, MessagesRequest } from './types.js';

// The breakpoints of a view recap forwards on /v1/messages (breakpoints.ts), from what the request
// carries: the client's own breakpoints and recap's summary, when the view starts with one.

// Enough to tell a prefix above Anthropic's minimum from one below it: about four characters a token.
const CHARS_PER_TOKEN = 4;
// The summary's mark is placed on every turn until the next cut; the next call reads it at least,
// the fewest calls cost.ts's expectedCalls ever counts.
const CALLS_AHEAD = 1;

const controlOf = (v: unknown): unknown => (v !== null && typeof v === 'object' ? (v as { cache_control?: unknown }).cache_control : undefined);

function lastControl(items: unknown): unknown {
  if (!Array.isArray(items)) return undefined;
  for (let i = items.length - 1; i >= 0; i--) if (controlOf(items[i]) != null) return controlOf(items[i]);
  return undefined;
}

/** recap's summary text when it opens the view (a message recap made, not one the client sent), else null. */
function summaryTextOf(body: MessagesRequest, view: readonly AnthropicMessage[]): string | null {
  const first = view[0];
  if (!first || first === body.messages[0] || first.role !== 'user') return null;
  const blocks = blocksOf(first);
  const text = blocks.length === 1 && blocks[0]!.type === 'text' ? blocks[0]!.text : null;
  return typeof text === 'string' && text.startsWith(SUMMARY_MARKER) ? text : null;
}

/** Estimated tokens of tools, system and summary, counted only as far as the minimum. */
function prefixTokens(body: MessagesRequest, summary: string): number {
  let chars = summary.length + (typeof body.system === 'string' ? body.system.length : JSON.stringify(body.system ?? []).length);
  if (chars < MIN_CACHED_TOKENS * CHARS_PER_TOKEN && body.tools) chars += JSON.stringify(body.tools).length;
  return Math.floor(chars / CHARS_PER_TOKEN);
}

/** `view` with the breakpoints recap forwards: the client's on what it keeps, one it lost on the summary when that pays, never more than the client sent nor 4. */
export function withViewBreakpoints(body: MessagesRequest, view: readonly AnthropicMessage[]): readonly AnthropicMessage[] {
  const outside = countBreakpoints(body.tools) + countBreakpoints(body.system);
  const summary = summaryTextOf(body, view);
  if (summary === null) return withinBreakpointLimit(view, outside);
  let clientMessages = 0;
  let newest: unknown;
  for (const m of body.messages) {
    clientMessages += countBreakpoints(m.content);
    newest = lastControl(m.content) ?? newest;
  }
  if (clientMessages === 0) return withinBreakpointLimit(view, outside);
  return placeBreakpoints(view, {
    outside,
    clientMessages,
    newest,
    lastOutside: lastControl(body.system) ?? lastControl(body.tools),
    summary: { prefixTokens: prefixTokens(body, summary), calls: CALLS_AHEAD },
  });
}
