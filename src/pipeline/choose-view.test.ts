import { describe, expect, it } from 'vitest';
import { chatWire } from '../wire/chat/items.js';
import { summaryCodec } from '../compaction/summary-message.js';
import { messageHash } from '../conversation/canonical.js';
import type { ChatMessage } from '../messages/types.js';
import type { Checkpoint } from '../store/store.js';
import { analyze } from './analyze.js';
import { type Base, chooseBase, matchingCheckpoints } from './choose-view.js';

const call = (id: string): ChatMessage => ({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'f', arguments: '{}' } }] });
const messages: ChatMessage[] = [
  { role: 'system', content: 'pinned' },
  { role: 'user', content: 'task' },
  call('a'),
  { role: 'tool', tool_call_id: 'a', content: 'result a' },
  call('b'),
  { role: 'tool', tool_call_id: 'b', content: 'result b' },
  { role: 'user', content: 'next' },
];
const a = analyze({
  items: messages,
  tokens: messages.map(() => 10),
  hashes: messages.map(messageHash),
  primingTokens: 3,
  countItem: () => 10,
  wire: chatWire,
  codec: summaryCodec('test-secret-0123456789', 'tenant'),
});
const cp = (covered: number, extra: Partial<Checkpoint> = {}): Checkpoint => ({
  covered,
  chainHash: a.links[(extra.prefix ?? covered) - 1] ?? 'none',
  summary: `s${covered}`,
  summaryTokens: 10,
  coveredTokens: 100,
  model: 'm',
  createdAt: 0,
  ...extra,
});
const record = (...checkpoints: Checkpoint[]) => ({ version: 3, updatedAt: 0, checkpoints });

describe('matchingCheckpoints', () => {
  it('keeps checkpoints whose prefix the request starts with, at a cut between units, least compacted first', () => {
    const found = matchingCheckpoints(a, record(cp(5), cp(3, { kept: [0] }), cp(1), cp(0, { prefix: 4, cleared: [2] })));
    expect(found.map((c) => [c.covered, c.cleared?.length ?? 0])).toEqual([
      [0, 1],
      [1, 0],
      [3, 0],
      [5, 0],
    ]);
  });

  it('leaves out a cut inside a step, a link of another history, and a checkpoint longer than the request', () => {
    expect(matchingCheckpoints(a, record(cp(2), cp(3, { chainHash: 'edited' }), cp(9, { chainHash: 'x' })))).toEqual([]);
  });

  it('leaves out what does not describe this request: kept items past the cut, cleared items that are not results', () => {
    expect(matchingCheckpoints(a, record(cp(3, { kept: [3] }), cp(0, { prefix: 4, cleared: [1] }), cp(1, { kept: [-1] })))).toEqual([]);
  });

  it('ignores a provisional checkpoint past its time, and uses one still within it', () => {
    const now = Date.now();
    const found = matchingCheckpoints(a, record(cp(3, { pendingUntil: now - 1, pendingToken: 't' }), cp(5, { pendingUntil: now + 60_000, pendingToken: 'u' })));
    expect(found.map((c) => c.covered)).toEqual([5]);
  });
});

describe('chooseBase', () => {
  const base = (covered: number): Base => ({ covered, kept: [], cleared: new Set(), summary: covered ? 's' : null, checkpoint: covered ? cp(covered) : null });
  it('prefers the least compacted candidate that fits', () => {
    const cands = [
      { base: base(0), tokens: 120 },
      { base: base(1), tokens: 90 },
      { base: base(3), tokens: 50 },
    ];
    expect(chooseBase(cands, 100)).toEqual({ choice: cands[1], fits: true });
    expect(chooseBase(cands, 200)).toEqual({ choice: cands[0], fits: true });
    expect(chooseBase(cands, 40)).toEqual({ choice: cands[2], fits: false });
  });
});
