import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../messages/types.js';
import { type PathRules, type RequestPath, startRequestPath } from './request-path.case.js';

// Past its trigger a conversation reuses its stored summary request after request; a request that
// extends the previous one (the same item objects, as the cache of seen items gives them) takes
// over that one's decision (decision-memo.ts). Whether it does must change nothing of what goes
// upstream: the same conversation sent as fresh objects (a process that saw none of it) is decided
// whole every time, and both get the same actions, views and summarizer calls.

let path: RequestPath;
beforeAll(async () => {
  path = await startRequestPath();
});
afterAll(async () => path?.close());

const BUDGET = 4000;
const RULES: PathRules = {
  trigger_ratio: 0.9,
  target_ratio: 0.5,
  summary_max_tokens: 100,
  keep_instructions: true,
  clearing: { keep_last_steps: 2, min_tokens: 1 },
  task_max_share: 0.1,
};

/** An agent's step (a call and its result) or a chat turn (a reply and a question), by turn. */
function next(n: number): ChatMessage[] {
  if (n % 3 === 2)
    return [
      { role: 'assistant', content: `Answer ${n}.` },
      { role: 'user', content: `Question ${n}: ${'why '.repeat(20)}` },
    ];
  return [
    { role: 'assistant', content: null, tool_calls: [{ id: `call_${n}`, type: 'function', function: { name: 'read_file', arguments: `{"n":${n}}` } }] },
    { role: 'tool', tool_call_id: `call_${n}`, content: `contents of file ${n}: ${'line '.repeat(60)}` },
  ];
}

async function run(fresh: boolean) {
  let counted = 0;
  const count = (m: ChatMessage): number => {
    counted++;
    return Math.ceil(JSON.stringify(m).length / 4);
  };
  const session = path.session({ budget: BUDGET, rules: RULES, reply: 'The assistant read the first files for the user.', count });
  const messages: ChatMessage[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Read every file and report.' },
  ];
  const outcomes: string[] = [];
  try {
    for (let n = 0; n < 60; n++) {
      messages.push(...next(n));
      const outcome = await session.send(fresh ? structuredClone(messages) : [...messages]);
      outcomes.push(JSON.stringify({ action: outcome.action, calls: outcome.inlineCalls, view: outcome.view, reason: outcome.reason }));
    }
    return { outcomes, counted, calls: session.summarizerCalls().map((c) => JSON.stringify(c.json)) };
  } finally {
    await session.close();
  }
}

describe('a request that takes over the previous decision', () => {
  it('sends what deciding it whole sends, turn after turn, across compactions', async () => {
    const taken = await run(false);
    const whole = await run(true);
    const actions = taken.outcomes.map((o) => (JSON.parse(o) as { action: string }).action);
    // The conversation compacts more than once and reuses its summaries in between.
    expect(actions.filter((a) => a === 'compacted').length).toBeGreaterThan(1);
    expect(actions.filter((a) => a === 'reused').length).toBeGreaterThan(20);
    expect(taken.outcomes).toEqual(whole.outcomes);
    expect(taken.calls).toEqual(whole.calls);
    // Taken over, a request does not count its history's stubs and summary again.
    expect(taken.counted).toBeLessThan(whole.counted);
  });
});
