import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../chat/types.js';
import { defuse } from '../compaction/delimiters.js';
import { summaryCodec } from '../compaction/summary-message.js';
import { contentText } from '../compaction/text.js';
import { summaryReservation } from '../compaction/validate-summary.js';
import { conversations, type GeneratedConversation, text } from './conversations.case.js';
import { compactWithoutIO, type PureOutcome } from './pure-compaction.case.js';

// DESIGN rules 1, 2 and 4 as properties of the request path's decisions, on generated
// conversations, budgets and ratios, a stored checkpoint or none, and summarizer replies that are
// accepted, too long, empty or missing (the degraded path).

const codec = summaryCodec('test-secret-0123456789', 'tenant');
/** The generated `tokens`, else (recap's summary messages) about four characters a token. */
const count = (m: ChatMessage): number => (typeof m['tokens'] === 'number' ? m['tokens'] : Math.ceil(contentText(m.content).length / 4) + 4);
const PRIMING = 3;

const scenario = fc.record({
  conversation: conversations(codec),
  budget: fc.integer({ min: 150, max: 5000 }),
  trigger: fc.constantFrom(0.8, 0.9, 1.0),
  target: fc.constantFrom(0.3, 0.5, 0.7),
  summaryMax: fc.integer({ min: 5, max: 300 }),
  reply: fc.oneof(fc.constant(null), fc.constant(''), text, fc.array(text, { minLength: 20, maxLength: 120 }).map((t) => t.join('\n'))),
  checkpoint: fc.option(fc.record({ at: fc.nat(), summary: text }), { nil: undefined }),
});
type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

function run(s: Scenario): PureOutcome {
  const rest = s.conversation.messages.length - s.conversation.pinned.length - (s.conversation.clientSummary === null ? 0 : 1);
  return compactWithoutIO({
    messages: s.conversation.messages,
    count,
    budget: s.budget,
    ratios: { trigger_ratio: s.trigger, target_ratio: s.target, summary_max_tokens: s.summaryMax },
    codec,
    summary: s.reply,
    checkpoint: s.checkpoint && { covered: 1 + (s.checkpoint.at % rest), summary: s.checkpoint.summary },
  });
}

const sum = (ms: readonly ChatMessage[]) => ms.reduce((n, m) => n + count(m), 0);
const lastUserIndex = (ms: readonly ChatMessage[]) => ms.map((m) => m.role).lastIndexOf('user');

/** The largest summary message the view can carry: a new one (at most the reservation) or a given one. */
function largestSummary(s: Scenario): number {
  const given = [s.conversation.clientSummary, s.checkpoint?.summary].map((t) => (t ? count(codec.build(t)) : 0));
  return Math.max(summaryReservation(s.summaryMax), ...given);
}

function expectInvariants(s: Scenario, { view }: PureOutcome): void {
  const { messages, pinned, clientSummary } = s.conversation;

  // Within budget, unless the newest round with the pinned messages and a summary is over it alone.
  const newest = messages.slice(lastUserIndex(messages));
  if (sum(pinned) + largestSummary(s) + sum(newest) + PRIMING <= s.budget) expect(sum(view) + PRIMING).toBeLessThanOrEqual(s.budget);

  // Pinned messages first and untouched: the very same objects, in order.
  pinned.forEach((m, i) => expect(view[i]).toBe(m));

  // At most one summary, right after the pinned messages, carrying one of the texts it may carry.
  const summaries = view.flatMap((m, i) => (codec.summaryTextOf(m) === null ? [] : [i]));
  expect(summaries.length).toBeLessThanOrEqual(1);
  if (summaries.length === 1) {
    expect(summaries[0]).toBe(pinned.length);
    const allowed = [clientSummary, s.checkpoint?.summary, s.reply].flatMap((t) => (t ? [defuse(t.trim())] : []));
    expect(allowed).toContain(codec.summaryTextOf(view[pinned.length]!));
  }

  // The rest is a tail of the request, verbatim, cut at a round start (never at a tool result).
  const kept = view.slice(pinned.length + summaries.length);
  const tail = messages.slice(messages.length - kept.length);
  kept.forEach((m, i) => expect(m).toBe(tail[i]));
  if (kept.length > 0) expect(kept[0]!.role).not.toBe('tool');

  // Every tool result follows the assistant message that called it, with only results between.
  view.forEach((m, i) => {
    if (m.role !== 'tool') return;
    let j = i - 1;
    while (j >= 0 && view[j]!.role === 'tool') j--;
    expect(view[j]?.tool_calls?.map((c) => c.id)).toContain(m.tool_call_id);
  });

  // The last user message and everything after it are unchanged.
  expect(view.slice(view.length - newest.length)).toEqual(newest);
  newest.forEach((m, i) => expect(view[view.length - newest.length + i]).toBe(m));
}

describe('compaction invariants on generated conversations', () => {
  it('hold for every plan: fits, reuse, compaction and the degraded path', () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(scenario, (s) => {
        const outcome = run(s);
        seen.add(outcome.action);
        expectInvariants(s, outcome);
      }),
      { numRuns: 400, seed: 0x5eed },
    );
    // The generator reaches every path, so the properties were checked on each.
    expect([...seen].sort()).toEqual(['compacted', 'degraded', 'none', 'reused']);
  });

  it('include a case that can fail: a view that drops the pinned messages is caught', () => {
    const s = fc.sample(scenario.filter((x) => x.conversation.pinned.length > 0), { numRuns: 1, seed: 1 })[0]!;
    const outcome = run(s);
    expect(() => expectInvariants(s, { ...outcome, view: outcome.view.slice(1) })).toThrow();
  });
});
