import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, SUMMARIZER, smallModel } from '../helpers/harness.js';
import { prose } from '../helpers/conversation.js';
import { redisCli, waitFor } from '../helpers/redis-process.js';
import { startRedisServer, type ThrowawayRedis } from '../helpers/redis-server.js';
import { debugSleep, pauseWrites, unpause, writesResumed } from './redis-freeze.js';

// Issue 9, Redis faults: Redis killed or frozen while a request compacts. Each case checks what the
// client got (served while Redis was still dead or frozen, its action), how often the summarizer
// was asked, and what Redis holds once it recovers: no checkpoint written after its request gave
// up, no lock left behind, one checkpoint per boundary. Served "in time" is an order, not a figure:
// the reply comes while Redis is still down (a write pause and a dead server last until the test
// ends them; a request that waited for Redis would never be served).

type Msg = OpenAI.Chat.Completions.ChatCompletionMessageParam;
const MODEL = 'gpt-test-small';
const BOUND_MS = 250; // store.command_timeout_ms
const SUMMARIZER_MS = 100;
// DEBUG SLEEP cannot be ended early: it lasts many times what a request needs with every store call
// given up (a load, or at most six calls one after the other, each bounded, and the summarizer).
const SLEEP_MS = 6_000;

let redis: ThrowawayRedis;
let h: Harness;
beforeAll(async () => {
  // Persistent, so that a killed Redis comes back with what it held, a lock included.
  redis = await startRedisServer(['--enable-debug-command', 'local', '--appendonly', 'yes', '--appendfsync', 'always']);
  h = await startHarness({
    fake: { summarizerModel: SUMMARIZER, summarizerLatencyMs: SUMMARIZER_MS },
    models: [smallModel()],
    extra: {
      store: { url: redis.url, command_timeout_ms: BOUND_MS },
      background: { enabled: false },
      // Short, so that a lock left behind shows as a degraded turn quickly.
      server: { compaction_wait_ms: 1_000 },
    },
  });
});
afterAll(async () => {
  await h?.close();
  await redis?.stop();
});

/** `turns` rounds: over the model's trigger from 30 on, so every such request needs a summary. */
function history(turns: number): Msg[] {
  const messages: Msg[] = [{ role: 'system', content: 'You help the ops team.' }];
  for (let t = 1; t <= turns; t++) messages.push({ role: 'user', content: prose(t) }, { role: 'assistant', content: `noted ${t}` });
  messages.push({ role: 'user', content: 'so, what now?' });
  return messages;
}

async function send(conversation: string, messages: Msg[]) {
  const { data, response } = await h.client({ conversation }).chat.completions.create({ model: MODEL, messages }).withResponse();
  expect(data.choices[0]!.message.content).toBeTruthy();
  return { action: response.headers.get('x-recap-action') };
}

async function record(conversation: string): Promise<{ version: number; checkpoints: { covered_messages: number }[] } | null> {
  const res = await fetch(`${h.recap.url}/recap/v1/conversations/${conversation}`, { headers: { authorization: 'Bearer sk-test-key' } });
  if (res.status === 404) return null;
  expect(res.status).toBe(200);
  return (await res.json()) as { version: number; checkpoints: { covered_messages: number }[] };
}

/** Compaction locks still in Redis: the claims (`h:` fields) of every conversation's lock table. */
async function lockKeys(): Promise<string[]> {
  const tables = (await redisCli(redis.port, '--scan', '--pattern', '*:locks')).split('\n').filter(Boolean);
  const held: string[] = [];
  for (const table of tables) {
    const fields = (await redisCli(redis.port, 'hkeys', table)).split('\n').filter((f) => f.startsWith('h:'));
    held.push(...fields.map((f) => `${table} ${f}`));
  }
  return held;
}

const summarizerCalls = () => h.fake.summarizerRequests().length;

/**
 * Sends a request that compacts and answers what it got. Its summary is held back from the moment
 * its summarizer call is in until `fault` is in place: its checkpoint write then comes after the
 * fault, however long setting it takes on a loaded machine (spawning redis-cli can take longer
 * than the summarizer's latency).
 */
async function compactingThrough(conversation: string, turns: number, fault: () => Promise<void>) {
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  h.fake.enqueue({ heldUntil: held }, { model: SUMMARIZER });
  const calls = summarizerCalls();
  const sent = send(conversation, history(turns));
  try {
    await waitFor('the summarizer call', async () => summarizerCalls() > calls);
    await fault();
  } finally {
    release();
  }
  return sent;
}

/** After recovery the conversation compacts once more and then reuses: one checkpoint, written provisionally then confirmed. */
async function expectRecovered(conversation: string, turns: number) {
  expect((await send(conversation, history(turns))).action).toBe('compacted');
  expect((await send(conversation, history(turns + 1))).action).toBe('reused');
  const after = await record(conversation);
  expect(after?.version).toBe(2);
  expect(after?.checkpoints).toHaveLength(1);
  expect(await lockKeys()).toEqual([]);
}

describe('Redis faults during a compaction', () => {
  it('CLIENT PAUSE WRITE during the compare-and-set: served while writes are held, the held write never lands, the lock is freed', async () => {
    const conv = 'pause-cas';
    const calls = summarizerCalls();
    // The request holds the lock and waits for its summary; its checkpoint write comes next.
    // Writes are held until the test lets go (CLIENT UNPAUSE), however long the requests take.
    const a = await compactingThrough(conv, 30, () => pauseWrites(redis.port, 600_000));
    // A later turn while writes are still held: it cannot load, lock or write.
    const b = await send(conv, history(31));
    for (const r of [a, b]) expect(r.action).toBe('compacted');
    await unpause(redis.port);
    await writesResumed(redis.port);
    expect(await record(conv)).toBeNull();
    expect(await lockKeys()).toEqual([]);

    await expectRecovered(conv, 32);
    expect(summarizerCalls() - calls).toBe(3);
  });

  it('DEBUG SLEEP while a request compacts: served while Redis sleeps, nothing it sent lands when Redis wakes', async () => {
    const conv = 'sleep-lock';
    const calls = summarizerCalls();
    const { woke } = await debugSleep(redis.port, SLEEP_MS);
    const awake = woke.then(() => 'woke');
    const r = send(conv, history(30));
    expect(await Promise.race([r.then(() => 'served'), awake])).toBe('served');
    expect((await r).action).toBe('compacted');
    await awake;
    expect(await record(conv)).toBeNull();
    // A lock taken when Redis woke would make the next turns wait for it and degrade.
    expect(await lockKeys()).toEqual([]);

    await expectRecovered(conv, 31);
    expect(summarizerCalls() - calls).toBe(2);
  });

  it("Redis killed during the compare-and-set: served while it is dead; back with its data, the dead request's lock is freed", async () => {
    const conv = 'kill-cas';
    const calls = summarizerCalls();
    // Redis stays dead until the restart below: both requests are served without it.
    const a = await compactingThrough(conv, 30, () => redis.kill());
    const b = await send(conv, history(31));
    for (const r of [a, b]) expect(r.action).toBe('compacted');

    // The lock the first request held survives the restart; its release, retried, gets through.
    await redis.restart();
    await waitFor('recap to reconnect', async () => (await fetch(`${h.recap.url}/readyz`)).status === 200);
    await expectRecovered(conv, 32);
    expect(summarizerCalls() - calls).toBe(3);
  });
});
