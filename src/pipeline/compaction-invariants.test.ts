import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../messages/types.js';
import { defuse } from '../compaction/delimiters.js';
import { summaryCodec } from '../compaction/summary-message.js';
import { contentText } from '../compaction/text.js';
import { summaryReservation } from '../compaction/validate-summary.js';
import { conversations, text } from './conversations.case.js';
import { compactWithoutIO, type PureOutcome } from './pure-compaction.case.js';

// DESIGN rules 1, 2, 4 and 11 as properties of the request path's decisions, on generated
// conversations (chats and long tool-using tasks, with later instructions and harness notes),
// budgets and ratios, clearing on or off, the opening task's share, a stored checkpoint or none,
// and summarizer replies that are accepted, too long, empty or missing (the degraded path).

const codec = summaryCodec('test-secret-0123456789', 'tenant');
const STUB = '[recap: tool result cleared';
const isStub = (m: ChatMessage) => typeof m.content === 'string' && m.content.startsWith(STUB);
/** The generated `tokens`, a stub's own size, else (recap's summary messages) about four characters a token. */
const count = (m: ChatMessage): number => {
  if (isStub(m)) return 20;
  return typeof m['tokens'] === 'number' ? m['tokens'] : Math.ceil(contentText(m.content).length / 4) + 4;
};
const PRIMING = 3;

const scenario = fc.record({
  conversation: conversations(codec),
  budget: fc.integer({ min: 150, max: 5000 }),
  trigger: fc.constantFrom(0.8, 0.9, 1.0),
  target: fc.constantFrom(0.3, 0.5, 0.7),
  summaryMax: fc.integer({ min: 5, max: 300 }),
  keepInstructions: fc.boolean(),
  taskShare: fc.constantFrom(0, 0.05, 0.25, 1),
  clearing: fc.option(fc.record({ keepLastSteps: fc.integer({ min: 1, max: 3 }), minTokens: fc.integer({ min: 30, max: 300 }) }), { nil: null }),
  reply: fc.oneof(
    fc.constant(null),
    fc.constant(''),
    text,
    fc.array(text, { minLength: 20, maxLength: 120 }).map((t) => t.join('\n')),
  ),
  checkpoint: fc.option(fc.record({ at: fc.nat(), summary: text }), { nil: undefined }),
});
type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

function run(s: Scenario): PureOutcome {
  const rest = s.conversation.messages.length - s.conversation.pinned.length - (s.conversation.clientSummary === null ? 0 : 1);
  return compactWithoutIO({
    messages: s.conversation.messages,
    count,
    budget: s.budget,
    rules: {
      trigger_ratio: s.trigger,
      target_ratio: s.target,
      prepare_ratio: 0.8,
      summary_max_tokens: s.summaryMax,
      keepInstructions: s.keepInstructions,
      clearing: s.clearing,
      taskMaxShare: s.taskShare,
    },
    codec,
    summary: s.reply,
    checkpoint: s.checkpoint && { covered: 1 + (s.checkpoint.at % Math.max(1, rest)), summary: s.checkpoint.summary },
  });
}

const sum = (ms: readonly ChatMessage[]) => ms.reduce((n, m) => n + count(m), 0);

/** The largest summary message the view can carry: a new one (at most the reservation) or a given one. */
function largestSummary(s: Scenario): number {
  const given = [s.conversation.clientSummary, s.checkpoint?.summary].map((t) => (t ? count(codec.build(t)) : 0));
  return Math.max(summaryReservation(s.summaryMax), ...given);
}

/** Index of the newest step's first message (an assistant message, with its results after it), or of the last message. */
function newestUnitStart(ms: readonly ChatMessage[], from: number): number {
  let i = ms.length - 1;
  while (i > from && ms[i]!.role === 'tool') i--;
  return i;
}

function expectInvariants(s: Scenario, { view }: PureOutcome): void {
  const { messages, pinned, clientSummary } = s.conversation;
  const after = pinned.length + (clientSummary === null ? 0 : 1);
  const lastUser = messages.map((m) => m.role).lastIndexOf('user');
  const newest = messages.slice(newestUnitStart(messages, after));
  const task = lastUser >= after && lastUser < messages.length - newest.length ? [messages[lastUser]!] : [];
  const instructions = messages.slice(after).filter((m) => m.role === 'developer');
  // The opening task, when it is within its share of the budget and not already counted above.
  const first = messages.slice(after).find((m) => m.role === 'user');
  const opening = first && count(first) <= s.taskShare * s.budget ? [first] : [];
  const extraTask = opening.filter((m) => !task.includes(m) && !newest.includes(m));

  // Within budget, unless the newest step with the pinned block, its task, the opening task, the
  // kept instructions and a summary is over it alone.
  const floor = sum(pinned) + largestSummary(s) + sum(task) + sum(extraTask) + (s.keepInstructions ? sum(instructions) : 0) + sum(newest) + PRIMING;
  if (floor <= s.budget) expect(sum(view) + PRIMING).toBeLessThanOrEqual(s.budget);

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

  // After it: messages of the request in their order, the client's own objects (or, for a tool
  // result, its cleared stub); a tail of the request, before which only kept instructions, the
  // opening task and the task of the round the tail starts in may stand.
  const shown = view.slice(pinned.length + summaries.length);
  const indices = shown.map((m) => {
    const i = isStub(m) ? messages.findIndex((x) => x.role === 'tool' && x.tool_call_id === m.tool_call_id) : messages.indexOf(m);
    expect(i, 'a view message that is not from the request').toBeGreaterThanOrEqual(after);
    return i;
  });
  indices.forEach((i, k) => k > 0 && expect(i).toBeGreaterThan(indices[k - 1]!));
  // The longest run at the end that is the request's own tail.
  let tailStart = indices.length;
  while (tailStart > 0 && indices[tailStart - 1] === messages.length - 1 - (indices.length - tailStart)) tailStart--;
  for (const i of indices.slice(0, tailStart)) expect(['developer', 'user']).toContain(messages[i]!.role);
  const usersBefore = indices.slice(0, tailStart).filter((i) => messages[i]!.role === 'user');
  expect(usersBefore.length).toBeLessThanOrEqual(2);
  if (usersBefore.length === 2) expect(messages[usersBefore[0]!]).toBe(opening[0]);
  if (shown.length > 0) expect(shown[0]!.role).not.toBe('tool');

  // Every tool result follows the assistant message that called it, with only results between.
  view.forEach((m, i) => {
    if (m.role !== 'tool') return;
    let j = i - 1;
    while (j >= 0 && view[j]!.role === 'tool') j--;
    expect(view[j]?.tool_calls?.map((c) => c.id)).toContain(m.tool_call_id);
  });

  // The newest step and its task are unchanged, the very same objects; later instructions are never lost.
  newest.forEach((m, i) => expect(view[view.length - newest.length + i]).toBe(m));
  for (const m of task) expect(view).toContain(m);
  // The opening task within its share is in every view, whatever user messages came after it.
  for (const m of opening) expect(view).toContain(m);
  if (s.keepInstructions) for (const m of instructions) expect(view).toContain(m);
}

describe('compaction invariants on generated conversations', () => {
  it('hold for every plan: fits, reuse, clearing, compaction and the degraded path', () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(scenario, (s) => {
        const outcome = run(s);
        seen.add(outcome.action);
        if (outcome.view.some(isStub)) seen.add('cleared');
        expectInvariants(s, outcome);
      }),
      { numRuns: 400, seed: 0x5eed },
    );
    // The generator reaches every path, so the properties were checked on each.
    expect([...seen].sort()).toEqual(['cleared', 'compacted', 'degraded', 'none', 'reused']);
  });

  it('include a case that can fail: a view that drops the pinned messages is caught', () => {
    const s = fc.sample(
      scenario.filter((x) => x.conversation.pinned.length > 0),
      { numRuns: 1, seed: 1 },
    )[0]!;
    const outcome = run(s);
    expect(() => expectInvariants(s, { ...outcome, view: outcome.view.slice(1) })).toThrow();
  });

  it('include a case that can fail: a compacted view without the opening task is caught', () => {
    // A summary made after a later user message (a harness note): the opening task is before the cut.
    const s = fc.sample(
      scenario.filter((x) => {
        if (x.taskShare !== 1 || x.checkpoint !== undefined) return false;
        const outcome = run(x);
        const users = x.conversation.messages.filter((m) => m.role === 'user');
        return outcome.action === 'compacted' && outcome.evicted.length > 0 && users.length >= 2 && !outcome.evicted.includes(users[0]!);
      }),
      { numRuns: 1, seed: 2 },
    )[0]!;
    const outcome = run(s);
    const first = s.conversation.messages.find((m) => m.role === 'user');
    expect(outcome.view).toContain(first);
    expect(() => expectInvariants(s, { ...outcome, view: outcome.view.filter((m) => m !== first) })).toThrow();
  });
});
