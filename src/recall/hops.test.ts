import { describe, expect, it } from 'vitest';
import { chatRecall } from '../wire/chat/recall.js';
import type { ChatMessage } from '../messages/types.js';
import { createLogger } from '../observability/logger.js';
import { createMetrics } from '../observability/metrics.js';
import { newRequestLog } from '../observability/request-log.js';
import { recallTurn } from './hops.js';
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
  };
}

const reply = (n: number) => ({
  calls: Array.from({ length: n }, (_, i) => ({ id: `r${i}`, arguments: '{"query":"","id":"call_1"}' })),
  assistant: [{ role: 'assistant', content: null, tool_calls: [] } as ChatMessage],
  dropped: 0,
});

describe('recallTurn', () => {
  it('keeps the continuation within the room the budget leaves, shared among the calls of one reply', () => {
    const s = session(600);
    const log = newRequestLog('POST', '/v1/chat/completions');
    const turn = recallTurn(s, chatRecall, [{ role: 'user', content: 'hi' }], { metrics: createMetrics(), logger: createLogger('silent') }, log);
    const items = turn.continueWith(reply(2), { prompt_tokens: 5 });
    const added = items.slice(1).reduce((n, m) => n + s.countItem(m), 0);
    expect(added).toBeLessThanOrEqual(600);
    expect(items.filter((m) => m.role === 'tool')).toHaveLength(2);
    expect(turn.answered).toBe(2);
    expect(log.recalls).toBe(2);
    expect(turn.mayContinue()).toBe(true);
  });

  it('says so in the last hop’s results, sums usage over the hops, and stops at max_hops', () => {
    const turn = recallTurn(session(10_000, 2), chatRecall, [], { metrics: createMetrics(), logger: createLogger('silent') }, newRequestLog('POST', '/'));
    turn.continueWith(reply(1), { prompt_tokens: 5, completion_tokens: 1 });
    const items = turn.continueWith(reply(1), { prompt_tokens: 7, completion_tokens: 2 });
    expect(String(items.at(-1)!.content)).toContain('This was the last recall for this reply');
    expect(String(items.at(-1)!.content)).toContain('MARK');
    expect(turn.mayContinue()).toBe(false);
    expect(turn.usageWith({ prompt_tokens: 9, completion_tokens: 3 })).toEqual({ prompt_tokens: 21, completion_tokens: 6 });
  });
});
