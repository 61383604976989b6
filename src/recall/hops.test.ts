import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { chatRecall } from '../wire/chat/recall.js';
import { chatReplyCalls } from '../wire/chat/recall-calls.js';
import type { ChatMessage } from '../messages/types.js';
import { createLogger } from '../observability/logger.js';
import { createMetrics } from '../observability/metrics.js';
import { MAX_CALLS_ANSWERED, recallTurn } from './hops.js';
import type { RecallSession } from './session.js';

const count = (text: string) => Math.ceil(text.length / 4);
const passages = [{ handle: 'call_1', label: 'tool cat result (cleared)', text: `${'lorem ipsum '.repeat(400)}MARK` }];

function session(room: number, maxHops = 2): RecallSession<ChatMessage> {
  return {
    modelLabel: 'm',
    maxHops,
    maxResultTokens: 2000,
    room,
    toolTokens: 90,
    rawToolTokens: 90,
    passages: () => passages,
    countItem: (m) => 4 + count(typeof m.content === 'string' ? m.content : '') + count(JSON.stringify(m.tool_calls ?? '')),
    countText: count,
    recalled: new Set(),
  };
}

const reply = (n: number, args = '{"query":"","id":"call_1"}') =>
  chatReplyCalls({
    role: 'assistant',
    content: null,
    tool_calls: Array.from({ length: n }, (_, i) => ({ id: `r${i}`, type: 'function', function: { name: 'recap_recall', arguments: args } })),
  })!;

class Lines extends Writable {
  readonly lines: Record<string, unknown>[] = [];
  override _write(chunk: Buffer, _enc: string, done: () => void) {
    this.lines.push(JSON.parse(chunk.toString()));
    done();
  }
}

describe('recallTurn', () => {
  it('keeps the continuation within the room the budget leaves, shared among the calls of one reply', () => {
    const s = session(600);
    const turn = recallTurn(s, chatRecall, [{ role: 'user', content: 'hi' }], { metrics: createMetrics(), logger: createLogger('silent') }, 'conversation');
    const items = turn.continueWith(reply(2), { prompt_tokens: 5 })!;
    const added = items.slice(1).reduce((n, m) => n + s.countItem(m), 0);
    expect(added).toBeLessThanOrEqual(600);
    expect(items.filter((m) => m.role === 'tool')).toHaveLength(2);
    expect(turn.answered).toBe(2);
    expect(turn.mayContinue()).toBe(true);
  });

  it('says so in the last hop’s results, sums usage over the hops, and stops at max_hops', () => {
    const turn = recallTurn(session(10_000, 2), chatRecall, [], { metrics: createMetrics(), logger: createLogger('silent') }, undefined);
    turn.continueWith(reply(1), { prompt_tokens: 5, completion_tokens: 1 });
    const items = turn.continueWith(reply(1), { prompt_tokens: 7, completion_tokens: 2 })!;
    expect(String(items.at(-1)!.content)).toContain('This was the last recall for this reply');
    expect(String(items.at(-1)!.content)).toContain('MARK');
    expect(turn.mayContinue()).toBe(false);
    expect(turn.usageWith({ prompt_tokens: 9, completion_tokens: 3 })).toEqual({ prompt_tokens: 21, completion_tokens: 6 });
  });

  it('keeps a continuation of many parallel calls within the room: the calls past what fits share one short answer, one log line per reply', () => {
    for (const [calls, args] of [
      [50, '{"query":"","id":"call_1"}'],
      [50, 'not json'],
      [5_000, '{"query":"MARK"}'],
    ] as const) {
      const s = session(600);
      const out = new Lines();
      const turn = recallTurn(s, chatRecall, [{ role: 'user', content: 'hi' }], { metrics: createMetrics(), logger: createLogger('info', out) }, undefined);
      const items = turn.continueWith(reply(calls, args), { prompt_tokens: 5 })!;
      expect(items.slice(1).reduce((n, m) => n + s.countItem(m), 0)).toBeLessThanOrEqual(600);
      const results = items.filter((m) => m.role === 'tool');
      // Every call the continuation carries is answered, and it carries no more than it answers.
      expect(results.length).toBe(items[1]!.tool_calls!.length);
      expect(results.length).toBeGreaterThan(0);
      expect(results.length).toBeLessThanOrEqual(MAX_CALLS_ANSWERED);
      expect(String(results.at(-1)!.content)).toContain(`${calls - results.length} more recap_recall calls were in this reply and not answered`);
      const logged = out.lines.filter((l) => String(l.msg).startsWith('recap_recall'));
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatchObject({ calls, answered: results.length, unanswered: calls - results.length });
    }
  });

  it('ends the reply when not even one call and its answer fit the room left', () => {
    const turn = recallTurn(session(20), chatRecall, [], { metrics: createMetrics(), logger: createLogger('silent') }, undefined);
    expect(turn.continueWith(reply(3), {})).toBeNull();
    expect(turn.hops).toBe(0);
  });

  it("keeps the last hop's result within max_result_tokens, its note included", () => {
    const s = { ...session(100_000, 1), maxResultTokens: 200 };
    const turn = recallTurn(s, chatRecall, [], { metrics: createMetrics(), logger: createLogger('silent') }, undefined);
    const items = turn.continueWith(reply(1), {})!;
    const result = String(items.at(-1)!.content);
    expect(result).toContain('This was the last recall for this reply');
    expect(count(result)).toBeLessThanOrEqual(200);
  });
});
