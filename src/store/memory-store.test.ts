import { describe, expect, it } from 'vitest';
import { addEdit } from './checkpoints.js';
import { MemoryStore } from './memory-store.js';
import { runStoreCases } from './store.case.js';

runStoreCases('memory', async (limits) => new MemoryStore({ ...limits, maxConversations: 1_000 }));

describe('memory store bound', () => {
  it("keeps the event logs within memoryMaxBytes, the least recently written conversation's going first", async () => {
    const store = new MemoryStore({ ttlMs: 60_000, maxConversations: 1_000, events: { perConversation: 200, conversations: 1_000, perTenant: 200_000, memoryMaxBytes: 20_000 } });
    const event = {
      at: Date.now(),
      route: 'chat' as const,
      model: 'm',
      model_label: 'm',
      action: 'none',
      tokens_in: 1,
      tokens_out: 1,
      cleared: 0,
      summarizer_calls: 0,
      summarizer_tokens: 0,
      recalls: 0,
      latency_ms: 1,
      status: 200,
    };
    const key = (conversation: string) => ({ tenant: 't', conversation });
    // ~190 bytes an event: 50 of them in each of five conversations is well over 20,000 bytes.
    for (const c of ['a', 'b', 'c', 'd', 'e']) for (let i = 0; i < 50; i++) await store.events.record(key(c), event, null);
    const kept = await Promise.all(['a', 'b', 'c', 'd', 'e'].map(async (c) => (await store.events.events(key(c), { limit: 200 })).items.length));
    expect(kept.slice(0, 3)).toEqual([0, 0, 0]);
    expect(kept.at(-1)).toBe(50);
  });

  it('forgets the least recently used conversation beyond maxConversations', async () => {
    const store = new MemoryStore({ ttlMs: 60_000, maxConversations: 2 });
    const key = (conversation: string) => ({ tenant: 't', conversation });
    const cp = { covered: 1, chainHash: 'h', summary: '', summaryTokens: 0, coveredTokens: 5, model: 'window', createdAt: 0 };
    const add = addEdit(cp, { perBranch: 8, total: 8 }, () => true);
    await store.updateCheckpoints(key('a'), add, 0);
    await store.updateCheckpoints(key('b'), add, 0);
    await store.load(key('a'));
    await store.updateCheckpoints(key('c'), add, 0);
    expect(await store.load(key('b'))).toBeNull();
    expect(await store.load(key('a'))).not.toBeNull();
    expect(await store.load(key('c'))).not.toBeNull();
  });
});
