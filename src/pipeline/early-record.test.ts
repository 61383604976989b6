import { describe, expect, it } from 'vitest';
import type { Caller } from '../auth/caller.js';
import { identifyBy, MAX_CONVERSATION_ID_BYTES } from '../conversation/identify.js';
import { createLogger } from '../observability/logger.js';
import { createMetrics } from '../observability/metrics.js';
import { MemoryStore } from '../store/memory-store.js';
import { createEarlyRecords } from './early-record.js';
import { createRecords } from './records.js';

const SECRET = 'test-secret-0123456789';
const alice: Caller = { kind: 'credential', credential: 'sk-alice' };
const bob: Caller = { kind: 'credential', credential: 'sk-bob' };
const named = (raw: string) => ({ header: 'x-conversation-id', raw });

function early(entries = 8) {
  const records = createRecords(new MemoryStore({ ttlMs: 60_000, maxConversations: 10 }), createMetrics(), createLogger('silent'), { perBranch: 4, total: 8 });
  return createEarlyRecords(records, SECRET, entries);
}

/** A request of `caller` on `conversation` whose record was read under `key`, or needed none. */
function served(e: ReturnType<typeof early>, caller: Caller, conversation: string, key: string | undefined) {
  const arrival = e.arrive(caller, named(conversation), 'chat')!;
  arrival.settle(key === undefined ? undefined : { tenant: arrival.identity.tenant, conversation: key });
  return arrival;
}

const readKey = (e: ReturnType<typeof early>, caller: Caller, conversation: string, route = 'chat') => e.arrive(caller, named(conversation), route)?.take()?.key.conversation;

describe('the record read as a request arrives', () => {
  it('is read under the key its conversation last read, for that tenant and route alone', async () => {
    const e = early();
    const first = served(e, alice, 'c1', 'audit-key');
    expect(first.take()).toBeUndefined();
    // The identity is identify's own.
    expect(first.identity).toEqual(identifyBy(alice, named('c1'), () => [], { secret: SECRET, route: 'chat' }));
    const next = e.arrive(alice, named('c1'), 'chat')!.take();
    expect(next?.key).toEqual({ tenant: first.identity.tenant, conversation: 'audit-key' });
    expect(await next?.record).toBeNull();
    expect(readKey(e, bob, 'c1')).toBeUndefined();
    expect(readKey(e, alice, 'c1', 'responses')).toBeUndefined();
    expect(readKey(e, alice, 'c2')).toBeUndefined();
  });

  it('is not read once the conversation last needed none, nor past its bound', () => {
    const e = early(2);
    served(e, alice, 'c1', 'k1');
    served(e, alice, 'c1', undefined);
    expect(readKey(e, alice, 'c1')).toBeUndefined();
    served(e, alice, 'c1', 'k1');
    served(e, alice, 'c2', 'k2');
    // c1 read again: c2 is now the least recently read, forgotten for c3.
    served(e, alice, 'c1', 'k1');
    served(e, alice, 'c3', 'k3');
    expect([readKey(e, alice, 'c1'), readKey(e, alice, 'c2'), readKey(e, alice, 'c3')]).toEqual(['k1', undefined, 'k3']);
  });

  it('is never read for a caller that keeps no records, or an id identify refuses', () => {
    const e = early();
    expect(e.arrive({ kind: 'anonymous', shared: false }, named('c1'), 'chat')).toBeUndefined();
    expect(e.arrive(alice, named('x'.repeat(MAX_CONVERSATION_ID_BYTES + 1)), 'chat')).toBeUndefined();
    expect(e.arrive(alice, undefined, 'chat')).toBeUndefined();
    const shared = served(e, { kind: 'anonymous', shared: true }, 'c1', 'k1');
    expect(shared.identity.keepsRecords).toBe(true);
    expect(readKey(e, { kind: 'anonymous', shared: true }, 'c1')).toBe('k1');
  });
});
