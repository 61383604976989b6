import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { countName } from './event-counts.js';
import { bucketStart, type ConversationEvent, ERRORS_KEPT } from './event-log.js';
import type { ConversationKey, Store, StoreLimits } from './store.js';

// The event log's contract, run by every store (store.case.ts calls it): the listing API and the
// dashboard read only what these cases pin down.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const opaque = () => randomBytes(12).toString('base64url');
const keyOf = (tenant: string): ConversationKey => ({ tenant, conversation: opaque() });

function event(over: Partial<ConversationEvent> = {}): ConversationEvent {
  return {
    at: Date.now(),
    route: 'chat',
    model: 'gpt-test-small',
    model_label: 'gpt-test*',
    action: 'none',
    tokens_in: 1000,
    tokens_out: 1000,
    budget: 2700,
    cleared: 0,
    summarizer_calls: 0,
    summarizer_tokens: 0,
    recalls: 0,
    latency_ms: 12.5,
    status: 200,
    outcome: 'complete',
    ...over,
  };
}

export function runEventLogCases(name: string, makeStore: (limits: StoreLimits) => Promise<Store>): void {
  describe(`${name} store, event log`, () => {
    const opened: Store[] = [];
    const open = async (limits: Partial<StoreLimits> = {}) => {
      const store = await makeStore({ ttlMs: 60_000, events: { perConversation: 5, conversations: 4, perTenant: 1000, memoryMaxBytes: 1024 * 1024 }, ...limits });
      opened.push(store);
      return store;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((store) => store.close()));
    });

    it('keeps the newest events of a conversation, newest first, paged by cursor', async () => {
      const { events } = await open();
      const key = keyOf(opaque());
      for (let i = 1; i <= 8; i++) await events.record(key, event({ tokens_in: i }), null);
      const first = await events.events(key, { limit: 3 });
      expect(first.items.map((e) => e.event.tokens_in)).toEqual([8, 7, 6]);
      expect(first.next).toEqual(expect.any(String));
      const second = await events.events(key, { before: first.next!, limit: 3 });
      // Bounded at 5: events 1 to 3 are gone.
      expect(second.items.map((e) => e.event.tokens_in)).toEqual([5, 4]);
      expect(second.next).toBeNull();
      expect(first.items[0]!.event).toEqual(event({ tokens_in: 8, at: first.items[0]!.event.at }));
      expect((await events.events(keyOf(opaque()), { limit: 3 })).items).toEqual([]);
    });

    it("adds every event to the conversation's entry", async () => {
      const { events } = await open();
      const key = keyOf(opaque());
      await events.record(key, event({ at: 1_000, tokens_in: 5000, tokens_out: 2000, action: 'compacted' }), 'ticket-42 ✓');
      await events.record(
        key,
        event({ at: 2_000, tokens_in: 5100, tokens_out: 5100, projected_tokens_out: 2100, action: 'none', audit: 'reused', route: 'responses', recalls: 2 }),
        null,
      );
      expect(await events.entry(key)).toEqual({
        tenant: key.tenant,
        conversation: key.conversation,
        id: 'ticket-42 ✓',
        route: 'responses',
        model: 'gpt-test-small',
        first_seen: 1_000,
        last_seen: 2_000,
        requests: 2,
        tokens_in: 10_100,
        tokens_out: 7_100,
        tokens_saved: 3_000,
        projected_tokens_saved: 3_000,
        last_action: 'none',
        last_audit: 'reused',
        recalls: 2,
      });
      expect(await events.entry(keyOf(key.tenant))).toBeNull();
    });

    it("lists a tenant's conversations newest first, paged across equal times; all tenants together with null", async () => {
      const { events } = await open({ events: { perConversation: 5, conversations: 100, perTenant: 1000, memoryMaxBytes: 1024 * 1024 } });
      const tenant = opaque();
      const other = opaque();
      const keys = Array.from({ length: 7 }, () => keyOf(tenant));
      // Three share one time: the cursor must neither skip nor repeat any of them.
      const times = [1_000, 2_000, 3_000, 3_000, 3_000, 4_000, 5_000];
      for (const [i, key] of keys.entries()) await events.record(key, event({ at: Date.now() - 10_000 + times[i]! }), `c${i}`);
      await events.record(keyOf(other), event(), 'theirs');
      const seen: string[] = [];
      let after: string | undefined;
      for (let pages = 0; pages < 10; pages++) {
        const page = await events.conversations(tenant, { after, limit: 2 });
        seen.push(...page.items.map((e) => e.id!));
        if (!page.next) break;
        after = page.next;
      }
      expect(seen).toHaveLength(7);
      expect(new Set(seen).size).toBe(7);
      expect(seen.slice(0, 2)).toEqual(['c6', 'c5']);
      expect(seen.slice(-2)).toEqual(['c1', 'c0']);
      const all = await events.conversations(null, { limit: 100 });
      expect(all.items.map((e) => e.id)).toEqual(['theirs', ...seen]);
      expect(all.items.every((e) => e.tenant === tenant || e.tenant === other)).toBe(true);
    });

    it('keeps the newest conversations of each index within its bound', async () => {
      const { events } = await open();
      const tenant = opaque();
      for (let i = 0; i < 6; i++) await events.record(keyOf(tenant), event({ at: Date.now() - 1_000 + i }), `c${i}`);
      expect((await events.conversations(tenant, { limit: 10 })).items.map((e) => e.id)).toEqual(['c5', 'c4', 'c3', 'c2']);
      expect((await events.conversations(null, { limit: 10 })).items).toHaveLength(4);
    });

    it('keeps each tenant within its bounds on conversations and on events: what leaves its index is deleted, events and entry', async () => {
      const { events } = await open({ events: { perConversation: 5, conversations: 4, perTenant: 12, memoryMaxBytes: 1024 * 1024 } });
      const tenant = opaque();
      const keys = Array.from({ length: 4 }, () => keyOf(tenant));
      // 5 + 5 events (the first conversation's sixth is past its own bound), then 1 + 1: 12 in all.
      for (let i = 0; i < 6; i++) await events.record(keys[0]!, event({ at: Date.now() - 10_000 + i }), 'a');
      for (let i = 0; i < 5; i++) await events.record(keys[1]!, event({ at: Date.now() - 9_000 + i }), 'b');
      await events.record(keys[2]!, event({ at: Date.now() - 8_000 }), 'c');
      await events.record(keys[3]!, event({ at: Date.now() - 7_000 }), 'd');
      expect((await events.conversations(tenant, { limit: 10 })).items.map((e) => e.id)).toEqual(['d', 'c', 'b', 'a']);
      // One event more is past 12: the least recently written conversation goes, whole.
      await events.record(keys[3]!, event({ at: Date.now() - 6_000 }), 'd');
      expect((await events.conversations(tenant, { limit: 10 })).items.map((e) => e.id)).toEqual(['d', 'c', 'b']);
      expect((await events.events(keys[0]!, { limit: 10 })).items).toEqual([]);
      expect(await events.entry(keys[0]!)).toBeNull();
      expect((await events.conversations(null, { limit: 100 })).items.filter((e) => e.tenant === tenant).map((e) => e.id)).toEqual(['d', 'c', 'b']);
      // A fifth conversation is past 4: again the least recently written goes.
      await events.record(keyOf(tenant), event({ at: Date.now() - 5_000 }), 'e');
      await events.record(keyOf(tenant), event({ at: Date.now() - 4_000 }), 'f');
      expect((await events.conversations(tenant, { limit: 10 })).items.map((e) => e.id)).toEqual(['f', 'e', 'd', 'c']);
      expect(await events.entry(keys[1]!)).toBeNull();
      // A forgotten conversation's events no longer count against its tenant.
      await events.forget(keys[2]!);
      await events.record(keyOf(tenant), event({ at: Date.now() - 3_000 }), 'g');
      expect((await events.conversations(tenant, { limit: 10 })).items.map((e) => e.id)).toEqual(['g', 'f', 'e', 'd']);
    });

    it('records a batch as it records its events one by one: events, entries, listing, counts, and what leaves the index is deleted', async () => {
      const limits = { events: { perConversation: 3, conversations: 2, perTenant: 1000, memoryMaxBytes: 1024 * 1024 } };
      const oneByOne = await open(limits);
      const batched = await open(limits);
      const at = Date.now() - 5_000;
      // Three conversations of one tenant past a bound of two: the first leaves the index, whole.
      const script = [0, 0, 1, 1, 1, 1, 2].map((c, i) => ({ c, event: event({ at: at + i, tokens_in: 1000 + i, tokens_out: 900 }), id: `c${c}` }));
      const tenant = { one: opaque(), batch: opaque() };
      const conversations = [opaque(), opaque(), opaque()];
      for (const step of script) await oneByOne.events.record({ tenant: tenant.one, conversation: conversations[step.c]! }, step.event, step.id);
      await batched.events.recordAll(script.map((step) => ({ key: { tenant: tenant.batch, conversation: conversations[step.c]! }, event: step.event, id: step.id })));
      const seen = async (store: Store, t: string) => {
        const keys = conversations.map((conversation) => ({ tenant: t, conversation }));
        return {
          listed: (await store.events.conversations(t, { limit: 10 })).items.map((e) => [e.id, e.requests, e.tokens_in, e.last_seen]),
          events: await Promise.all(keys.map(async (k) => (await store.events.events(k, { limit: 10 })).items.map((e) => e.event))),
          entries: (await Promise.all(keys.map((k) => store.events.entry(k)))).map((e) => e && { ...e, tenant: 'x' }),
          counts: (await store.events.counts(t, 'hour', at - 60_000, at + 60_000)).map((b) => b.counts),
        };
      };
      const expected = await seen(oneByOne, tenant.one);
      expect(expected.listed.map(([id]) => id)).toEqual(['c2', 'c1']);
      expect(expected.events[0]).toEqual([]);
      expect(expected.events[1]!.map((e) => e.tokens_in)).toEqual([1005, 1004, 1003]);
      expect(await seen(batched, tenant.batch)).toEqual(expected);
    });

    it("keeps the listing of all tenants fair: one tenant's new conversations never push another's out", async () => {
      const { events } = await open();
      const quiet = opaque();
      const noisy = opaque();
      await events.record(keyOf(quiet), event({ at: Date.now() - 60_000 }), 'quiet');
      for (let i = 0; i < 12; i++) await events.record(keyOf(noisy), event({ at: Date.now() - 1_000 + i }), `n${i}`);
      const all = (await events.conversations(null, { limit: 100 })).items;
      expect(all.map((e) => e.id)).toEqual(['n11', 'n10', 'n9', 'n8', 'quiet']);
    });

    it("keeps each tenant's newest errors, and every tenant's together, newest first (issue 38)", async () => {
      const { events } = await open();
      const [a, b] = [opaque(), opaque()];
      const error = (tenant: string, at: number) => ({
        at,
        status: 502,
        code: at % 2 ? 'upstream_unreachable' : null,
        model: 'gpt-test-small',
        route: 'chat',
        tenant,
        conversation: at % 3 ? `c${at}` : null,
      });
      for (let i = 1; i <= ERRORS_KEPT + 5; i++) await events.recordError(error(a, i));
      await events.recordError(error(b, 1_000));
      const ofA = await events.errors(a, 500);
      expect(ofA).toHaveLength(ERRORS_KEPT);
      expect(ofA[0]).toEqual(error(a, ERRORS_KEPT + 5));
      expect(ofA.map((e) => e.at)).toEqual(Array.from({ length: ERRORS_KEPT }, (_, i) => ERRORS_KEPT + 5 - i));
      expect(await events.errors(b, 10)).toEqual([error(b, 1_000)]);
      const all = await events.errors(null, 3);
      expect(all.map((e) => [e.tenant, e.at])).toEqual([
        [b, 1_000],
        [a, ERRORS_KEPT + 5],
        [a, ERRORS_KEPT + 4],
      ]);
    });

    it('counts per model in minute and hour buckets, per tenant and for all', async () => {
      const { events } = await open();
      const a = opaque();
      const b = opaque();
      const at = Date.now();
      await events.record(keyOf(a), event({ at, tokens_in: 5000, tokens_out: 2000, action: 'compacted', summarizer_calls: 1, summarizer_tokens: 900 }), null);
      await events.record(keyOf(b), event({ at, tokens_in: 3000, tokens_out: 3000, projected_tokens_out: 1000, audit: 'compacted' }), null);
      await events.addCounts(a, at, { [countName('gpt-test*', 'summarizer_calls')]: 2 });
      const count = (buckets: { counts: Record<string, number> }[], metric: string) => buckets.reduce((n, x) => n + (x.counts[countName('gpt-test*', metric)] ?? 0), 0);
      for (const resolution of ['minute', 'hour'] as const) {
        const ofA = await events.counts(a, resolution, at - 60_000, at);
        expect(ofA.map((x) => x.at)).toEqual([bucketStart(at, resolution)]);
        expect(count(ofA, 'tokens_saved')).toBe(3000);
        expect(count(ofA, 'summarizer_calls')).toBe(3);
        expect(count(ofA, 'action.compacted')).toBe(1);
        const ofAll = await events.counts(null, resolution, at - 60_000, at);
        expect(count(ofAll, 'requests')).toBe(2);
        expect(count(ofAll, 'projected_tokens_saved')).toBe(2000);
        expect(count(ofAll, 'audit.compacted')).toBe(1);
      }
      expect(await events.counts(opaque(), 'minute', at - 60_000, at)).toEqual([]);
    });

    it('forgets a conversation: its events, its entry and its place in both indexes', async () => {
      const { events } = await open();
      const key = keyOf(opaque());
      await events.record(key, event(), 'gone');
      expect(await events.forget(key)).toBe(true);
      expect((await events.events(key, { limit: 5 })).items).toEqual([]);
      expect(await events.entry(key)).toBeNull();
      expect((await events.conversations(key.tenant, { limit: 5 })).items).toEqual([]);
      expect((await events.conversations(null, { limit: 5 })).items.map((e) => e.id)).not.toContain('gone');
      expect(await events.forget(key)).toBe(false);
    });

    it("lets events and entries expire with the record's TTL", async () => {
      const { events } = await open({ ttlMs: 300 });
      const key = keyOf(opaque());
      await events.record(key, event(), 'short-lived');
      expect(await events.entry(key)).not.toBeNull();
      await sleep(600);
      expect((await events.events(key, { limit: 5 })).items).toEqual([]);
      expect(await events.entry(key)).toBeNull();
      expect((await events.conversations(key.tenant, { limit: 5 })).items).toEqual([]);
    });

    it('refuses keys that are not opaque hashes', async () => {
      const { events } = await open();
      await expect(events.record({ tenant: 'a.b', conversation: 'c' }, event(), null)).rejects.toThrow(TypeError);
      await expect(events.conversations('{x}', { limit: 5 })).rejects.toThrow(TypeError);
      await expect(events.addCounts('a b', Date.now(), {})).rejects.toThrow(TypeError);
    });
  });
}
