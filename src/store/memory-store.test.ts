import { describe, expect, it } from 'vitest';
import { addEdit } from './checkpoints.js';
import { MemoryStore } from './memory-store.js';
import { runStoreCases } from './store.case.js';

runStoreCases('memory', async (limits) => new MemoryStore({ ...limits, maxConversations: 1_000 }));

describe('memory store bound', () => {
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
