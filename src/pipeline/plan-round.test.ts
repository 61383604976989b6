import { describe, expect, it } from 'vitest';
import { summaryCodec } from '../compaction/summary-message.js';
import { compactionSchema } from '../config/schema.js';
import { messageHash } from '../conversation/canonical.js';
import type { ChatMessage } from '../messages/types.js';
import { runSync } from '../slicing/slicer.js';
import { chatWire } from '../wire/chat/items.js';
import { analyze } from './analyze.js';
import { planRules } from './plan-rules.js';
import { type RoundInput, roundSteps } from './plan-round.js';

// The pure planner of one round: what the request's view needs, from the analysis, the record and
// the budget alone (decide.ts carries it out).

const call = (id: string): ChatMessage => ({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'read', arguments: '{}' } }] });
const result = (id: string, tokens: number): ChatMessage => ({ role: 'tool', tool_call_id: id, content: 'r'.repeat(tokens) });
const messages: ChatMessage[] = [
  { role: 'system', content: 'pinned' },
  { role: 'user', content: 'task' },
  ...['a', 'b', 'c', 'd', 'e', 'f'].flatMap((id) => [call(id), result(id, 400)]),
  { role: 'user', content: 'next' },
];
// A result counts a token per character (its stub too), any other item 10.
const tokensOf = (m: ChatMessage) => (m.role === 'tool' ? String(m.content).length : 10);
const a = analyze({
  items: messages,
  tokens: messages.map(tokensOf),
  hashes: messages.map(messageHash),
  primingTokens: 3,
  countItem: tokensOf,
  wire: chatWire,
  codec: summaryCodec('test-secret-0123456789', 'tenant'),
});
// 6 results of 400 and 10 more items of 10: 2,503 tokens in all.
const round = (budget: number, extra: Partial<RoundInput<ChatMessage>> = {}, compaction: Record<string, unknown> = {}) => {
  const c = compactionSchema.parse({ strategy: 'summarize', summarizer: { model: 's' }, ...compaction });
  return runSync(roundSteps({ a, record: null, budget, trigger: c.trigger_ratio * budget, rules: planRules(c), cost: null, summaryMaxTokens: 100, lastRound: false, ...extra }));
};

describe('roundSteps', () => {
  it('forwards the client’s own view when it fits below the trigger', () => {
    const { step } = round(3000);
    expect(step).toMatchObject({ kind: 'forward', furthest: true });
    expect(step.kind === 'forward' && step.choice.base.checkpoint).toBeNull();
  });

  it('degrades a view that does not fit once the rounds are used up', () => {
    expect(round(2000, { lastRound: true }).step).toMatchObject({ kind: 'degrade', reason: 'compaction_busy' });
  });

  it('clears old tool results when that alone makes the view fit, and summarizes when it does not', () => {
    const clear = round(2000, {}, { clear_tool_results: { keep_last_steps: 1, min_tokens: 50 } }).step;
    expect(clear.kind).toBe('clear');
    expect(clear.kind === 'clear' && clear.cut.cleared.length).toBeGreaterThan(0);
    const summarize = round(600, {}, { clear_tool_results: { enabled: false } }).step;
    expect(summarize.kind).toBe('summarize');
    expect(summarize.kind === 'summarize' && summarize.cut.covered).toBeGreaterThan(0);
  });
});
