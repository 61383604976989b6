import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../messages/types.js';
import { type RequestPath, SECRET, startRequestPath, TENANT, transcriptOf } from '../pipeline/request-path.case.js';
import { summaryCodec } from './summary-message.js';
import { renderTranscript } from './transcript.js';

// The rules of docs/design.md pinned end to end on the request path (planCompaction → decide → the
// route plan, with the in-memory store and the summarizer on the fake upstream), with a fake token
// count (`tokens` on a message, else 10) in place of the tokenizer. The generated conversations of
// pipeline/compaction-invariants.test.ts check the same rules at random.

const codec = summaryCodec(SECRET, TENANT);
const count = (m: ChatMessage): number => (typeof m['tokens'] === 'number' ? m['tokens'] : 10);
// The opening task is not pinned here (task_max_share 0): these rules are about rounds and steps.
const rules = { trigger_ratio: 1.0, target_ratio: 0.6, summary_max_tokens: 10, keep_instructions: true, clearing: null, task_max_share: 0 };
const isSummary = (m: ChatMessage) => codec.summaryTextOf(m) !== null;

let path: RequestPath;
beforeAll(async () => {
  path = await startRequestPath();
});
afterAll(() => path?.close());

/** One request of a new conversation; `evicted`: the transcript the summarizer was shown, if it was called. */
async function compact(messages: ChatMessage[], budget: number): Promise<{ action: string; view: ChatMessage[]; evicted: string | null }> {
  const session = path.session({ budget, rules, reply: 'S', count });
  try {
    const { action, view } = await session.send(messages);
    const calls = session.summarizerCalls();
    expect(calls.length).toBeLessThanOrEqual(1);
    return { action, view, evicted: calls[0] ? transcriptOf(calls[0]) : null };
  } finally {
    await session.close();
  }
}

const msg = (role: string, content: string, tokens?: number): ChatMessage => ({ role, content, ...(tokens ? { tokens } : {}) });
const calls = (...ids: string[]): ChatMessage => ({
  role: 'assistant',
  content: null,
  tool_calls: ids.map((id) => ({ id, type: 'function', function: { name: `fn_${id}`, arguments: '{}' } })),
});
const result = (id: string, tokens = 10): ChatMessage => ({ role: 'tool', tool_call_id: id, content: `result ${id}`, tokens });

/** Every tool result in `messages` answers a call made inside `messages`. */
function expectToolPairsIntact(messages: ChatMessage[]): void {
  const ids = new Set(messages.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id)));
  for (const m of messages.filter((x) => x.role === 'tool')) expect(ids.has(m.tool_call_id!)).toBe(true);
}

describe('rules', () => {
  it("molo's example: 4 rounds of 11 tokens, budget 30 → [summary, newest round]", async () => {
    const messages = [1, 2, 3, 4].flatMap((i) => [msg('user', `Question from round ${i}`, 5), msg('assistant', `Answer from round ${i}`, 6)]);
    const { action, evicted, view } = await compact(messages, 30);
    expect(action).toBe('compacted');
    expect(evicted).toBe(await renderTranscript(messages.slice(0, 6)));
    expect(view).toHaveLength(3);
    expect(isSummary(view[0]!)).toBe(true);
    expect(view[1]).toEqual(msg('user', 'Question from round 4', 5));
    expect(evicted).toContain('USER: Question from round 3');
    expect(evicted).not.toContain('round 4');
  });

  it('pinned system and developer messages stay first and untouched; the summary goes right after them', async () => {
    const sys = msg('system', 'You are helpful.', 3);
    const dev = msg('developer', 'Be brief.', 2);
    const messages = [sys, dev, ...[1, 2, 3, 4].flatMap((i) => [msg('user', `q${i}`, 5), msg('assistant', `a${i}`, 6)])];
    const { view } = await compact(messages, 35);
    expect(view[0]).toBe(sys);
    expect(view[1]).toBe(dev);
    expect(isSummary(view[2]!)).toBe(true);
    expect(view[3]!.role).toBe('user');
  });

  it('a single round over budget is irreducible: nothing is evicted, the request goes as is', async () => {
    const messages = [msg('system', 'sys', 5), msg('user', 'a huge paste', 5000)];
    const { action, view, evicted } = await compact(messages, 1000);
    expect(action).toBe('none');
    expect(view).toBe(messages);
    expect(evicted).toBeNull();
  });

  it('an assistant with three tool calls and its three results are never separated by a cut', async () => {
    const messages = [
      msg('user', 'q1'),
      calls('a', 'b', 'c'),
      result('a', 200),
      result('b', 200),
      result('c', 200),
      msg('assistant', 'a1'),
      msg('user', 'q2'),
      calls('d'),
      result('d', 100),
      msg('user', 'q3'),
      msg('assistant', 'a3'),
    ];
    const { action, evicted, view } = await compact(messages, 700);
    expect(action).toBe('compacted');
    // The cut falls after the step (the call and its three results), inside round 1: q1 stays.
    expect(evicted).toBe(await renderTranscript(messages.slice(1, 5)));
    expect(view[1]).toBe(messages[0]);
    expectToolPairsIntact(view);
    expect(view[1]!.role).toBe('user');
  });

  it('consecutive user messages are separate rounds, so a cut can fall between them', async () => {
    const messages = [msg('user', 'part 1', 400), msg('user', 'part 2', 400), msg('user', 'part 3', 100), msg('assistant', 'ok')];
    const { action, evicted, view } = await compact(messages, 800);
    expect(action).toBe('compacted');
    expect(evicted).toBe(await renderTranscript(messages.slice(0, 2)));
    expect(view.slice(1)).toEqual(messages.slice(2));
  });

  it('a conversation ending in tool results keeps its newest round whole', async () => {
    const messages = [msg('user', 'q1', 500), msg('assistant', 'a1', 500), msg('user', 'q2'), calls('x', 'y'), result('x'), result('y')];
    const { action, evicted, view } = await compact(messages, 1000);
    expect(action).toBe('compacted');
    expect(evicted).toBe(await renderTranscript(messages.slice(0, 2)));
    expect(view.slice(1)).toEqual(messages.slice(2));
    expect(view.at(-1)!.role).toBe('tool');
  });

  it('non-text content is counted, cut by rounds and shown as placeholders to the summarizer', async () => {
    const image: ChatMessage = {
      role: 'user',
      content: [
        { type: 'text', text: 'What is in this picture?' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
      ],
      tokens: 800,
    };
    const messages = [image, msg('assistant', 'A cat.', 50), msg('user', 'Thanks'), msg('assistant', 'You are welcome.')];
    const { evicted, view } = await compact(messages, 500);
    expect(evicted).toBe('USER: What is in this picture?\n  [image]\nASSISTANT: A cat.');
    expect(view.slice(1)).toEqual(messages.slice(2));
  });
});
