import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../messages/types.js';
import { type PathRules, type RequestPath, startRequestPath } from './request-path.case.js';

// Past the prepare line a request forwarded first looks at its next checkpoint once its reply is
// out (rule 10), unless what it adds to its conversation's last look stays within the room that
// look left below the line (prepare-room.ts). The room is a cache: a process that keeps none looks
// after every request and prepares the same checkpoints, from the same requests.

let path: RequestPath;
beforeAll(async () => {
  path = await startRequestPath();
});
afterAll(async () => path?.close());

const BUDGET = 4000;
const count = (m: ChatMessage): number => (typeof m['tokens'] === 'number' ? m['tokens'] : Math.ceil(JSON.stringify(m.content).length / 4) + 4);
const RULES: PathRules = { trigger_ratio: 1, target_ratio: 0.6, summary_max_tokens: 100, keep_instructions: true, clearing: null, task_max_share: 0 };

/** A chat's next request adds a reply and a question (80 tokens). */
const chatTurn = (n: number): ChatMessage[] => [
  { role: 'assistant', content: `Answer ${n}.`, tokens: 40 },
  { role: 'user', content: `Question ${n}.`, tokens: 40 },
];
/** An agent's next request adds a tool call and its result (130 tokens; a cleared result is ~40). */
const toolStep = (n: number): ChatMessage[] => [
  { role: 'assistant', content: null, tool_calls: [{ id: `call_${n}`, type: 'function', function: { name: 'read_file', arguments: '{}' } }], tokens: 10 },
  // Counted by its text (~120 tokens), as its stub is.
  { role: 'tool', tool_call_id: `call_${n}`, content: `contents of file ${n}: ${'line '.repeat(90)}` },
];

/** A conversation grown from `from` tokens to just under the trigger, forwarded first as forward-first.ts would, with or without rooms. */
async function grow(rooms: boolean, rules: PathRules, next: (n: number) => ChatMessage[], from: number) {
  const session = path.session({ budget: BUDGET, rules, reply: 'The user and the assistant went over the first questions.', background: true, count, rooms });
  const messages: ChatMessage[] = [
    { role: 'system', content: 'You answer questions.', tokens: 20 },
    { role: 'user', content: 'The first question.', tokens: 40 },
  ];
  const tokensOf = () => 3 + messages.reduce((n, m) => n + count(m), 0);
  while (tokensOf() < from) messages.push(...next(messages.length));
  const prepareLine = (rules.prepare_ratio ?? 0.8) * BUDGET;
  const requests: { reads: number; calls: number }[] = [];
  for (let tokens = tokensOf(); tokens < BUDGET; messages.push(...next(messages.length)), tokens = tokensOf()) {
    const reads = await path.recordReads();
    const calls = session.summarizerCalls().length;
    const outcome = await session.send([...messages], tokens <= prepareLine ? 'below both lines' : 'below the trigger');
    expect(outcome.action).toBe('none');
    requests.push({ reads: (await path.recordReads()) - reads, calls: session.summarizerCalls().length - calls });
  }
  const record = await session.record();
  const checkpoints = record?.checkpoints.map(({ covered, prefix, chainHash, kept, cleared, summary }) => ({ covered, prefix, chainHash, kept, cleared, summary }));
  await session.close();
  return { requests, checkpoints, transcripts: session.summarizerCalls().map((c) => JSON.stringify(c.json)) };
}

const indicesOf = <T>(xs: readonly T[], p: (x: T) => boolean) => xs.flatMap((x, i) => (p(x) ? [i] : []));

describe('the room a look leaves below the prepare line', () => {
  it('spares the looks of a growing chat while it lasts, looks again where it runs out, and prepares what a process without it prepares', async () => {
    const rules = { ...RULES, prepare_ratio: 0.5 };
    const kept = await grow(true, rules, chatTurn, 1900);
    const none = await grow(false, rules, chatTurn, 1900);
    // Without a room every request past the line (the third on) reads its record.
    expect(indicesOf(none.requests, (r) => r.reads > 0)).toEqual(none.requests.slice(2).map((_, i) => i + 2));
    expect(kept.requests.map((r) => r.calls)).toEqual(none.requests.map((r) => r.calls));
    expect(kept.transcripts).toEqual(none.transcripts);
    expect(kept.checkpoints).toEqual(none.checkpoints);
    // With it: the look that prepares a checkpoint and the next one (which finds the room the
    // checkpoint leaves), then none until what was added since reaches that room, 20 requests on.
    const prepared = indicesOf(kept.requests, (r) => r.calls > 0);
    expect(prepared).toEqual([2, 24]);
    expect(indicesOf(kept.requests, (r) => r.reads > 0)).toEqual([2, 3, 24, 25]);
  });

  it('spares the looks of an agent whose old results clearing would clear, while clearing them all would bring it under the target', async () => {
    const rules = { ...RULES, clearing: { keep_last_steps: 1, min_tokens: 100 } };
    const kept = await grow(true, rules, toolStep, 3250);
    const none = await grow(false, rules, toolStep, 3250);
    expect(none.requests.every((r) => r.reads > 0)).toBe(true);
    // Clearing reaches the target at every request: nothing to prepare, and one look is enough.
    expect(kept.checkpoints).toEqual(none.checkpoints);
    expect(none.requests.every((r) => r.calls === 0)).toBe(true);
    expect(indicesOf(kept.requests, (r) => r.reads > 0)).toEqual([0]);
    expect(kept.requests.length).toBeGreaterThan(4);
  });

  it('spares the looks past the trigger too, where every request reuses its summary, and prepares what a process without it prepares', async () => {
    const rules = { ...RULES, trigger_ratio: 0.9, target_ratio: 0.4, prepare_ratio: 0.6 };
    /** Past the trigger from the first request: each compacts or reuses, and looks once its reply is out. */
    const pastTrigger = async (rooms: boolean) => {
      let counted = 0;
      const counting = (m: ChatMessage) => {
        counted++;
        return count(m);
      };
      const session = path.session({ budget: BUDGET, rules, reply: 'The user asked questions and got answers.', background: true, count: counting, rooms });
      const messages: ChatMessage[] = [
        { role: 'system', content: 'You answer questions.', tokens: 20 },
        { role: 'user', content: 'The first question.', tokens: 40 },
      ];
      for (let n = 0; n < 45; n++) messages.push(...chatTurn(n));
      const actions: string[] = [];
      try {
        for (let n = 45; n < 105; n++) {
          actions.push((await session.send([...messages])).action);
          messages.push(...chatTurn(n));
        }
        const record = await session.record();
        return {
          actions,
          counted,
          checkpoints: record?.checkpoints.map(({ covered, prefix, chainHash, summary }) => ({ covered, prefix, chainHash, summary })),
          transcripts: session.summarizerCalls().map((c) => JSON.stringify(c.json)),
        };
      } finally {
        await session.close();
      }
    };
    const kept = await pastTrigger(true);
    const none = await pastTrigger(false);
    expect(kept.actions.filter((a) => a === 'reused').length).toBeGreaterThan(30);
    expect(kept.actions).toEqual(none.actions);
    expect(kept.transcripts).toEqual(none.transcripts);
    expect(kept.checkpoints).toEqual(none.checkpoints);
    // The looks it spared counted no stubs and summaries.
    expect(kept.counted).toBeLessThan(none.counted);
  });
});
