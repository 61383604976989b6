import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConversationKey } from '../src/store/store.js';
import { prose, storedCheckpoints } from './helpers/conversation.js';
import { type Harness, SUMMARIZER, smallModel, startHarness } from './helpers/harness.js';
import { startRedisServer, type ThrowawayRedis } from './helpers/redis-server.js';
import { settlesBefore } from './helpers/settles-before.js';

// A conversation past its trigger reads its record on every request: the read starts as the
// request arrives, before its body is read, when the conversation's last request needed its
// record (src/pipeline/early-record.ts). Only a read of the request's own key is used: another
// tenant naming the same conversation starts none, a model in audit mode reads its own records,
// and a request forwarded first reads nothing it waits for. Real Redis; the store is wrapped to
// see which records recap reads and when.

const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const KEY_A = 'sk-early-tenant-a';
const KEY_B = 'sk-early-tenant-b';
// Far beyond any read's time: the sentinel only keeps a failing test from waiting for ever.
const SENTINEL_MS = 10_000;

type Msg = { role: string; content: string };

interface Sent {
  status: number;
  action: string | undefined;
  audit: string | undefined;
  reply: string;
}

/** POSTs `body` as a chat request; its last byte goes once `beforeLastByte` is done. */
function post(url: string, key: string, conversation: string, body: object, beforeLastByte?: () => Promise<unknown>): Promise<Sent> {
  const bytes = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${url}/v1/chat/completions`,
      { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': bytes.length, 'x-conversation-id': conversation } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const reply = res.statusCode === 200 ? ((JSON.parse(text) as { choices: { message: { content: string } }[] }).choices[0]?.message.content ?? '') : text;
          const header = (name: string) => res.headers[name] as string | undefined;
          resolve({ status: res.statusCode ?? 0, action: header('x-recap-action'), audit: header('x-recap-audit'), reply });
        });
      },
    );
    req.on('error', reject);
    req.write(bytes.subarray(0, -1));
    void (beforeLastByte?.() ?? Promise.resolve()).then(() => req.end(bytes.subarray(-1)));
  });
}

/** The store's record reads, recorded as recap makes them. */
function watchReads(h: Harness) {
  const store = h.recap.runtime.records.store;
  const load = store.load.bind(store);
  const reads: ConversationKey[] = [];
  let onRead: (() => void) | undefined;
  store.load = (key) => {
    reads.push(key);
    onRead?.();
    return load(key);
  };
  return {
    reads,
    /** Resolves at the next read. */
    next: () => new Promise<void>((resolve) => (onRead = resolve)),
    clear: () => reads.splice(0),
  };
}

/** Grows a conversation until recap compacts it; its messages, the checkpoint stored. */
async function pastTrigger(url: string, key: string, conversation: string): Promise<Msg[]> {
  const messages: Msg[] = [{ role: 'system', content: 'You help the ops team.' }];
  for (let t = 1; t <= 40; t++) {
    messages.push({ role: 'user', content: prose(t) });
    const sent = await post(url, key, conversation, { model: 'gpt-test-small', messages });
    expect(sent.status).toBe(200);
    messages.push({ role: 'assistant', content: sent.reply });
    if (sent.action === 'compacted') {
      expect(await storedCheckpoints(url, conversation, key)).toBeGreaterThan(0);
      return messages;
    }
  }
  throw new Error('the conversation never compacted');
}

describe('reading a record as its request arrives', () => {
  let h: Harness;
  let watch: ReturnType<typeof watchReads>;
  let history: Msg[];
  let tenantA: string;
  beforeAll(async () => {
    h = await startHarness({
      storeUrl: REDIS,
      fake: { summarizerModel: SUMMARIZER },
      extra: { background: { enabled: false } },
      models: [smallModel(), { ...smallModel({ mode: 'audit' }), match: 'gpt-test-audit' }],
    });
    watch = watchReads(h);
    history = await pastTrigger(h.recap.url, KEY_A, 'early');
  });
  afterAll(async () => h?.close());

  const next = (turn: number): Msg[] => [...history, { role: 'user', content: prose(turn) }];

  it('reads the record of a conversation past its trigger before the body is whole, and reads it once', async () => {
    watch.clear();
    let readBeforeLastByte = false;
    const read = watch.next();
    const sent = await post(h.recap.url, KEY_A, 'early', { model: 'gpt-test-small', messages: next(100) }, async () => {
      readBeforeLastByte = await settlesBefore(read, SENTINEL_MS);
    });
    expect(readBeforeLastByte).toBe(true);
    expect(sent).toMatchObject({ status: 200, action: 'reused' });
    expect(watch.reads).toHaveLength(1);
    tenantA = watch.reads[0]!.tenant;
  });

  it('starts no read for another tenant naming the same conversation, and gives it nothing of the first', async () => {
    watch.clear();
    const sent = await post(h.recap.url, KEY_B, 'early', { model: 'gpt-test-small', messages: next(101) });
    // Its own history, past the trigger with no record of its own: summarized afresh.
    expect(sent).toMatchObject({ status: 200, action: 'compacted' });
    expect(watch.reads.length).toBeGreaterThan(0);
    expect(watch.reads.every((k) => k.tenant !== tenantA)).toBe(true);
  });

  it('does not use the read for a model in audit mode, whose records are kept apart', async () => {
    watch.clear();
    const sent = await post(h.recap.url, KEY_A, 'early', { model: 'gpt-test-audit', messages: next(102) });
    // Enforcing's summary is stored; audit, with no record of its own, would have compacted.
    expect(sent).toMatchObject({ status: 200, audit: 'compacted' });
    // The conversation's record read as it arrived, then the audit record it reads instead.
    expect(watch.reads.length).toBeGreaterThanOrEqual(2);
    expect(watch.reads[1]!.conversation).not.toBe(watch.reads[0]!.conversation);
    // What it read under is what the conversation's next request reads as it arrives.
    watch.clear();
    const again = await post(h.recap.url, KEY_A, 'early', { model: 'gpt-test-audit', messages: next(103) });
    expect(again).toMatchObject({ status: 200, audit: 'reused' });
    expect(watch.reads).toHaveLength(1);
  });

  it('forwards a request that provably fits as sent, and reads nothing early for its next one', async () => {
    const small = [
      { role: 'system', content: 'You help the ops team.' },
      { role: 'user', content: 'Start over: what is on call today?' },
    ];
    const body = { model: 'gpt-test-small', messages: small };
    const forwarded = h.fake.chatRequests().length;
    const sent = await post(h.recap.url, KEY_A, 'early', body);
    expect(sent).toMatchObject({ status: 200, action: 'none' });
    expect(h.fake.chatRequests()[forwarded]!.body).toBe(JSON.stringify(body));
    watch.clear();
    expect(await post(h.recap.url, KEY_A, 'early', body)).toMatchObject({ status: 200, action: 'none' });
    expect(watch.reads).toHaveLength(0);
  });
});

describe('reading a record as its request arrives, with Redis gone', () => {
  let redis: ThrowawayRedis;
  let h: Harness;
  beforeAll(async () => {
    redis = await startRedisServer();
    h = await startHarness({ storeUrl: redis.url, fake: { summarizerModel: SUMMARIZER }, extra: { background: { enabled: false } }, models: [smallModel()] });
  });
  afterAll(async () => {
    await h?.close();
    await redis?.stop();
  });

  it('serves as without records, and leaves no read unhandled', async () => {
    const history = await pastTrigger(h.recap.url, KEY_A, 'early-outage');
    await redis.kill();
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      // Its record read as it arrived answers 'unavailable': compacted again inline (rule 8). Its
      // other temperature keeps it from going upstream on the last decision (reuse-first.ts), which
      // reads no record before it goes.
      const body = { model: 'gpt-test-small', temperature: 0.5, messages: [...history, { role: 'user', content: prose(100) }] };
      const past = await post(h.recap.url, KEY_A, 'early-outage', body);
      expect(past).toMatchObject({ status: 200, action: 'compacted' });
      // A read nothing waits for: the request went as sent.
      const small = { model: 'gpt-test-small', messages: [{ role: 'user', content: 'Still there?' }] };
      expect(await post(h.recap.url, KEY_A, 'early-outage', small)).toMatchObject({ status: 200, action: 'none' });
      // Unhandled rejections are reported after the microtasks of the turn that made them.
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(unhandled).toEqual([]);
  });
});
