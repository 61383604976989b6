import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clearedStubText } from '../compaction/clearing.js';
import { defuse } from '../compaction/delimiters.js';
import { summaryCodec } from '../compaction/summary-message.js';
import { taskNoteOf, withoutTaskNote } from '../compaction/task-note.js';
import { contentText } from '../compaction/text.js';
import { summaryReservation } from '../compaction/validate-summary.js';
import type { ChatMessage } from '../messages/types.js';
import { conversations, type GeneratedConversation, text } from './conversations.case.js';
import { type PathOutcome, type PathScenario, type RequestPath, SECRET, type Session, startRequestPath, TENANT } from './request-path.case.js';

// docs/design.md rules 1, 2, 4, 8, 9 and 11 as properties of what the request path forwards, on generated
// conversations (chats and long tool-using tasks, with later instructions and harness notes),
// budgets and ratios, clearing on or off, the opening task's share, a stored checkpoint or none,
// and summarizer replies that are accepted, too long, empty or failing (the degraded path). The requests go through the production path
// (request-path.case.ts: planCompaction → decide → the route plan, the in-memory store, the
// summarizer client against the fake upstream), with background preparation on or off, a caller
// whose credential recap may not pay for yet, a tenant whose allowance is spent, an anonymous
// caller, and turn after turn of one conversation sent several times at once.

const codec = summaryCodec(SECRET, TENANT);
const STUB = '[recap: tool result cleared';
const isStub = (m: ChatMessage) => typeof m.content === 'string' && m.content.startsWith(STUB);
/** The generated `tokens`, a stub's own size, else (recap's summary messages) about four characters a token. */
const count = (m: ChatMessage): number => {
  if (isStub(m)) return 20;
  return typeof m['tokens'] === 'number' ? m['tokens'] : Math.ceil(contentText(m.content).length / 4) + 4;
};
const PRIMING = 3;

const knobArbitraries = {
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
  background: fc.boolean(),
  // Rarer conditions: a caller recap may not pay a summary for yet, a spent allowance, no credential.
  caller: fc.constantFrom('accepted', 'accepted', 'accepted', 'unproven', 'allowance_spent', 'anonymous'),
};
const scenario = fc.record({
  conversation: conversations(codec),
  ...knobArbitraries,
  checkpoint: fc.option(fc.record({ at: fc.nat(), summary: text }), { nil: undefined }),
});
type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;
type Knobs = Omit<Scenario, 'conversation' | 'checkpoint'>;

function pathScenario(s: Knobs): PathScenario {
  return {
    budget: s.budget,
    rules: {
      trigger_ratio: s.trigger,
      target_ratio: s.target,
      summary_max_tokens: s.summaryMax,
      keep_instructions: s.keepInstructions,
      task_max_share: s.taskShare,
      clearing: s.clearing && { keep_last_steps: s.clearing.keepLastSteps, min_tokens: s.clearing.minTokens },
    },
    reply: s.reply,
    background: s.background,
    unproven: s.caller === 'unproven',
    allowanceSpent: s.caller === 'allowance_spent',
    keepsRecords: s.caller !== 'anonymous',
    count,
  };
}

const sum = (ms: readonly ChatMessage[]) => ms.reduce((n, m) => n + count(m), 0);

/** Index of the newest step's first message (an assistant message, with its results after it), or of the last message. */
function newestUnitStart(ms: readonly ChatMessage[], from: number): number {
  let i = ms.length - 1;
  while (i > from && ms[i]!.role === 'tool') i--;
  return i;
}

/** The ids of the calls made by the newest `keep` steps (assistant messages) after the pinned block: their results are never cleared. */
function protectedCalls(ms: readonly ChatMessage[], after: number, keep: number): Set<string> {
  const steps = ms.slice(after).filter((m) => m.role === 'assistant');
  return new Set(steps.slice(-Math.max(1, keep)).flatMap((m) => (m.tool_calls ?? []).map((c) => c.id)));
}

interface Expectation {
  conversation: GeneratedConversation;
  knobs: Knobs;
  /** The summaries the view may carry besides the summarizer's reply: a stored one. */
  stored: readonly string[];
}

function expectInvariants({ conversation, knobs: s, stored }: Expectation, messages: ChatMessage[], { view }: PathOutcome): void {
  const { pinned, clientSummary } = conversation;
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
  const largestSummary = Math.max(summaryReservation(s.summaryMax), ...[clientSummary, ...stored].map((t) => (t ? count(codec.build(t)) : 0)));
  const floor = sum(pinned) + largestSummary + sum(task) + sum(extraTask) + (s.keepInstructions ? sum(instructions) : 0) + sum(newest) + PRIMING;
  if (floor <= s.budget) expect(sum(view) + PRIMING).toBeLessThanOrEqual(s.budget);

  // Pinned messages first and untouched: the very same objects, in order.
  pinned.forEach((m, i) => expect(view[i]).toBe(m));

  // At most one summary, right after the pinned messages, carrying one of the texts it may carry.
  const summaries = view.flatMap((m, i) => (codec.summaryTextOf(m) === null ? [] : [i]));
  expect(summaries.length).toBeLessThanOrEqual(1);
  if (summaries.length === 1) {
    expect(summaries[0]).toBe(pinned.length);
    const given = [clientSummary, ...stored].flatMap((t) => (t ? [defuse(t.trim())] : []));
    const made = s.reply ? defuse(s.reply.trim()) : null;
    const summary = codec.summaryTextOf(view[pinned.length]!)!;
    // A new summary may start with recap's note that the opening task is in it (rule 1).
    const text = given.includes(summary) ? summary : withoutTaskNote(summary);
    expect([...given, made]).toContain(text);
    if (made !== null && text === made && !given.includes(summary)) {
      // A summary the summarizer just made is within summary_max_tokens: an oversized one degrades (rule 8).
      expect(count(view[pinned.length]!)).toBeLessThanOrEqual(summaryReservation(s.summaryMax));
      // It says so when it took in the opening task, which is then no longer in the view.
      if (given.length === 0 && first && !view.includes(first)) expect(taskNoteOf(summary)).not.toBeNull();
    }
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

  // Steps stay whole: every tool result follows the assistant message that called it, with only
  // results between, and every call in the view has its results with it.
  view.forEach((m, i) => {
    if (m.role !== 'tool') return;
    let j = i - 1;
    while (j >= 0 && view[j]!.role === 'tool') j--;
    expect(view[j]?.tool_calls?.map((c) => c.id)).toContain(m.tool_call_id);
  });
  view.forEach((m, i) => {
    let end = i + 1;
    while (end < view.length && view[end]!.role === 'tool') end++;
    const results = new Set(view.slice(i + 1, end).map((r) => r.tool_call_id));
    for (const c of m.tool_calls ?? []) expect(results.has(c.id), `the result of ${c.id} was separated from its call`).toBe(true);
  });

  // Clearing (rule 11): only results older than the newest keep_last_steps steps and at least
  // min_tokens long become stubs, each naming the tool, the call and the size it replaces.
  const stubs = shown.filter(isStub);
  if (!s.clearing) expect(stubs).toEqual([]);
  else {
    const kept = protectedCalls(messages, after, s.clearing.keepLastSteps);
    for (const stub of stubs) {
      const original = messages.find((x) => x.role === 'tool' && x.tool_call_id === stub.tool_call_id)!;
      expect(kept.has(stub.tool_call_id!), `a result of the newest ${s.clearing.keepLastSteps} steps was cleared`).toBe(false);
      expect(count(original)).toBeGreaterThanOrEqual(s.clearing.minTokens);
      expect(stub).toEqual({ ...original, content: clearedStubText('lookup', stub.tool_call_id!, original.content as string) });
    }
  }

  // The newest step and its task are unchanged, the very same objects; later instructions are never lost.
  newest.forEach((m, i) => expect(view[view.length - newest.length + i]).toBe(m));
  for (const m of task) expect(view).toContain(m);
  // The opening task within its share is in every view, whatever user messages came after it.
  for (const m of opening) expect(view).toContain(m);
  if (s.keepInstructions) for (const m of instructions) expect(view).toContain(m);
}

/** What the caller's standing allows (docs/shared-keys.md, rule 8). */
function expectCallerRules(s: Knobs, outcome: PathOutcome): void {
  // No summary is paid for a credential the upstream has not accepted, nor past the tenant's allowance.
  if (s.caller === 'unproven' || s.caller === 'allowance_spent') expect(outcome.inlineCalls).toBe(0);
  if (s.caller === 'unproven' && outcome.action === 'degraded') expect(outcome.reason).toBe('credential_not_yet_accepted');
  if (s.caller === 'allowance_spent') expect(outcome.reason).toBeUndefined();
  if (outcome.action === 'degraded') expect(outcome.reason).toMatch(/^(summarizer_|summary_|credential_not_yet_accepted$|compaction_)/);
}

let path: RequestPath;
beforeAll(async () => {
  path = await startRequestPath();
});
afterAll(() => path?.close());

async function withSession<T>(s: Knobs, work: (session: Session) => Promise<T>): Promise<T> {
  const session = path.session(pathScenario(s));
  try {
    return await work(session);
  } finally {
    await session.close();
  }
}

describe('compaction invariants on generated conversations, through the request path', () => {
  it('hold for every plan: fits, reuse, clearing, compaction, the degraded path, callers recap may not pay for', async () => {
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(scenario, (s) =>
        withSession(s, async (session) => {
          const { messages } = s.conversation;
          const rest = messages.length - s.conversation.pinned.length - (s.conversation.clientSummary === null ? 0 : 1);
          const stored = s.checkpoint && (await session.storeCheckpoint(messages, { covered: 1 + (s.checkpoint.at % Math.max(1, rest)), summary: s.checkpoint.summary }));
          const checkpointBefore = (await session.record())?.checkpoints.length ?? 0;
          const outcome = await session.send(messages);
          seen.add(outcome.action);
          if (outcome.view.some(isStub)) seen.add('cleared');
          if (outcome.reason) seen.add(outcome.reason.replace(/_.*/, ''));
          // An anonymous caller's request reads no stored checkpoint.
          expectInvariants({ conversation: s.conversation, knobs: s, stored: stored && s.caller !== 'anonymous' ? [s.checkpoint!.summary] : [] }, messages, outcome);
          expectCallerRules(s, outcome);
          const record = await session.record();
          // A degraded request writes nothing (rule 8); an anonymous caller's, nothing ever.
          if (outcome.action === 'degraded' || s.caller === 'anonymous') expect(record?.checkpoints.length ?? 0).toBe(checkpointBefore);
          // A summary made for the request is stored once its reply came back 2xx, for good.
          const summary = outcome.view.map((m) => codec.summaryTextOf(m)).find((t) => t !== null);
          if (outcome.action === 'compacted' && s.caller !== 'anonymous' && summary)
            expect(record!.checkpoints.some((cp) => cp.summary !== '' && defuse(cp.summary.trim()) === summary && cp.pendingUntil === undefined)).toBe(true);
        }),
      ),
      { numRuns: 250, seed: 0x5eed },
    );
    // The generator reaches every path, so the properties were checked on each.
    expect([...seen].sort()).toEqual(['cleared', 'compacted', 'credential', 'degraded', 'none', 'reused', 'summarizer', 'summary']);
  }, 300_000);

  it('hold turn after turn, each request sent several times at once: one summarizer call per boundary', async () => {
    const turns = fc.record({
      conversation: conversations(codec),
      ...knobArbitraries,
      concurrency: fc.integer({ min: 1, max: 3 }),
      // Which of the request points (after a user message, after a step's results) are sent before the whole conversation.
      sent: fc.array(fc.nat(), { maxLength: 5 }),
    });
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(turns, (s) =>
        withSession(s, async (session) => {
          const { messages } = s.conversation;
          const after = s.conversation.pinned.length + (s.conversation.clientSummary === null ? 0 : 1);
          const ends = messages.flatMap((m, i) => (i >= after && (m.role === 'user' || (m.role === 'tool' && messages[i + 1]?.role !== 'tool')) ? [i + 1] : []));
          const earlier = [...new Set(s.sent.map((k) => ends[k % Math.max(1, ends.length)]!))].filter((e) => e < messages.length).sort((x, y) => x - y);
          const points = [...earlier, messages.length];
          const outcomes: PathOutcome[] = [];
          for (const end of points) {
            const request = messages.slice(0, end);
            const burst = await Promise.all(Array.from({ length: s.concurrency }, () => session.send(request)));
            // The first 2xx proves an unproven caller's credential: from the next turn on, it is accepted.
            const caller = outcomes.length > 0 && s.caller === 'unproven' ? 'accepted' : s.caller;
            for (const outcome of burst) {
              seen.add(outcome.action);
              expectInvariants({ conversation: s.conversation, knobs: s, stored: [] }, request, outcome);
              // Concurrent requests' calls are not told apart: the count is checked on single requests above.
              expectCallerRules({ ...s, caller }, { ...outcome, inlineCalls: 0 });
            }
            outcomes.push(...burst);
          }
          // Rule 9: while nothing degraded, no span was summarized twice: concurrent requests of a
          // boundary shared one call, later ones built on the stored summary (an anonymous
          // caller's requests keep no records: each compacts on its own).
          if (s.caller !== 'anonymous' && !outcomes.some((o) => o.action === 'degraded')) {
            const bodies = session.summarizerCalls().map((c) => c.body);
            expect(new Set(bodies).size).toBe(bodies.length);
          }
          // A spent allowance holds for background preparation too.
          if (s.caller === 'allowance_spent') expect(session.summarizerCalls()).toEqual([]);
        }),
      ),
      { numRuns: 40, seed: 0x7e57 },
    );
    expect([...seen].sort()).toEqual(['compacted', 'degraded', 'none', 'reused']);
  }, 300_000);

  it('include a case that can fail: a compacted view without the opening task is caught', async () => {
    // A summary made after a later user message (a harness note): the opening task is before the cut.
    const task: ChatMessage = { role: 'user', content: 'Fix the flaky deploy of ORD-4411.', tokens: 20 };
    const messages: ChatMessage[] = [task, { role: 'user', content: 'continue', tokens: 5 }];
    for (let i = 0; i < 12; i++) {
      messages.push({ role: 'assistant', content: null, tool_calls: [{ id: `call_${i}`, type: 'function', function: { name: 'lookup', arguments: '{}' } }], tokens: 10 });
      messages.push({ role: 'tool', tool_call_id: `call_${i}`, content: `result ${i}`, tokens: 100 });
    }
    const knobs: Knobs = {
      budget: 800,
      trigger: 1.0,
      target: 0.5,
      summaryMax: 100,
      keepInstructions: true,
      taskShare: 1,
      clearing: null,
      reply: 'The agent looked up twelve things.',
      caller: 'accepted',
      background: false,
    };
    const conversation = { messages, pinned: [], clientSummary: null };
    const outcome = await withSession(knobs, (session) => session.send(messages));
    expect(outcome.action).toBe('compacted');
    expect(codec.summaryTextOf(outcome.view[0]!)).toBe(knobs.reply);
    expect(outcome.view[1]).toBe(task);
    expectInvariants({ conversation, knobs, stored: [] }, messages, outcome);
    expect(() => expectInvariants({ conversation, knobs, stored: [] }, messages, { ...outcome, view: outcome.view.filter((m) => m !== task) })).toThrow();
  });

  /** An agent's ten steps: 1,620 tokens over a budget of 1,000 (the knobs), its results clearable. */
  function tenServices(background: boolean): { messages: ChatMessage[]; knobs: Knobs } {
    const messages: ChatMessage[] = [{ role: 'user', content: 'Audit the ten services.', tokens: 20 }];
    for (let i = 0; i < 10; i++) {
      messages.push({
        role: 'assistant',
        content: `Checking service ${i}.`,
        tool_calls: [{ id: `call_${i}`, type: 'function', function: { name: 'lookup', arguments: '{}' } }],
        tokens: 60,
      });
      messages.push({ role: 'tool', tool_call_id: `call_${i}`, content: `result ${i}`, tokens: 100 });
    }
    const knobs: Knobs = {
      budget: 1000,
      trigger: 1.0,
      target: 0.5,
      summaryMax: 100,
      keepInstructions: true,
      taskShare: 0,
      clearing: { keepLastSteps: 1, minTokens: 30 },
      reply: 'The agent checked ten services.',
      caller: 'accepted',
      background,
    };
    return { messages, knobs };
  }

  it('clear now and leave the summary to background preparation when clearing alone gets under the trigger line', async () => {
    // Clearing every result but the newest step's leaves 900: not under the target (500), so a
    // summary is due, but under the trigger, so it can wait.
    const { messages, knobs } = tenServices(true);
    const outcome = await withSession(knobs, (session) => session.send(messages));
    expect(outcome.action).toBe('compacted');
    expect(outcome.inlineCalls).toBe(0);
    expect(outcome.view.filter(isStub)).toHaveLength(9);
    expect(outcome.view.some((m) => codec.summaryTextOf(m) !== null)).toBe(false);
    expectInvariants({ conversation: { messages, pinned: [], clientSummary: null }, knobs, stored: [] }, messages, outcome);
  });

  it('plan a request that went upstream first as it was sent, whatever its count says', async () => {
    // Over the trigger by its count: planned normally it is compacted; forwarded first (a bound
    // that proved it below the trigger), its plan must be the bytes that went, and write nothing.
    const { messages, knobs } = tenServices(false);
    const planned = await withSession(knobs, (session) => session.send(messages));
    expect(planned.action).toBe('compacted');
    const [asSent, record] = await withSession(knobs, async (session) => [await session.send(messages, 'below the trigger'), await session.record()] as const);
    expect(asSent).toMatchObject({ action: 'none', inlineCalls: 0, view: messages });
    expect(record).toBeNull();
  });

  it('include a case that can fail: a view that drops the pinned messages is caught', async () => {
    const s = fc.sample(
      scenario.filter((x) => x.conversation.pinned.length > 0),
      { numRuns: 1, seed: 1 },
    )[0]!;
    const outcome = await withSession(s, (session) => session.send(s.conversation.messages));
    expect(() => expectInvariants({ conversation: s.conversation, knobs: s, stored: [] }, s.conversation.messages, { ...outcome, view: outcome.view.slice(1) })).toThrow();
  });
});
