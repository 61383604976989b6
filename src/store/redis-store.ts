import { conversationTag } from './conversation-tag.js';
import { withDeadline } from './deadline.js';
import { DEFAULT_EVENT_LIMITS } from './event-log.js';
import { newLockToken, ReleaseRetries } from './lock-release.js';
import { CONNECT_TIMEOUT_MS, createRedisClient, whenConnected } from './redis-client.js';
import { RedisEventLog } from './redis-event-log.js';
import { defineRecapScripts, type ScriptedClient } from './redis-scripts.js';
import {
  type Checkpoint,
  type CheckpointEdit,
  type ConversationKey,
  type ConversationRecord,
  type LockClaim,
  type LockGrant,
  type LockHolder,
  type LockTable,
  type Store,
  type StoreLimits,
  type StoreState,
  StoreUnavailableError,
  type UpdateResult,
} from './store.js';
import { spendFits } from './spend-fits.js';
import { acceptedKey, spendKey, spendTtlMs } from './tenant-keys.js';
import { readWithClock, writeDeadline } from './write-deadline.js';

// The shared store of many recap replicas. A record is a hash {v: version, d: checkpoints JSON,
// u: updatedAt}; the conversation's compaction locks are another hash (redis-scripts.ts LOCK).
// Every key of one conversation carries the hash tag {tenant.conversation}, so on a cluster they
// live in one slot and scripts over them never fail with CROSSSLOT.

// Writers that lost a compare-and-set read and apply their edit again, this many times in all. Of
// n writers of one record at once each round lands one, so every one of 16 lands: branches of one
// opening (sub-agents, retries) all write their conversation's record, and with 4 attempts eight
// branches on two replicas lost them all about once a run, which held that compaction's claim
// through its reply for want of its provisional checkpoint (decide.ts).
const EDIT_ATTEMPTS = 16;

export interface RedisStoreOptions extends StoreLimits {
  url: string;
  keyPrefix: string;
  /** Every method settles within this bound. */
  commandTimeoutMs: number;
  /** Connection errors, for the caller to log; the store itself only reports them as unavailability. */
  onError?: (err: Error) => void;
}

export class RedisStore implements Store {
  readonly kind = 'redis' as const;
  readonly events: RedisEventLog;
  private readonly client: ScriptedClient;
  // Set by an error or a lost connection, cleared by 'ready': tells "down" from "still starting".
  private troubled = false;
  private closed = false;
  private readonly releaseRetries = new ReleaseRetries();

  /** Connects and waits for the first outcome, but never fails: a store that is down fails open. */
  static async open(options: RedisStoreOptions): Promise<RedisStore> {
    const store = new RedisStore(options);
    await whenConnected(store.client, CONNECT_TIMEOUT_MS);
    return store;
  }

  constructor(private readonly options: RedisStoreOptions) {
    this.client = defineRecapScripts(createRedisClient(options.url, options.commandTimeoutMs));
    this.events = new RedisEventLog(this.client, {
      ...(options.events ?? DEFAULT_EVENT_LIMITS),
      keyPrefix: options.keyPrefix,
      ttlMs: options.ttlMs,
      onUnreadable: options.onUnreadable,
      run: (operation, work) => this.run(operation, work),
    });
    this.client.on('ready', () => {
      this.troubled = false;
    });
    this.client.on('close', () => {
      this.troubled = true;
    });
    // Without an 'error' listener ioredis reports every failed reconnect as an unhandled error.
    this.client.on('error', (err: Error) => {
      this.troubled = true;
      options.onError?.(err);
    });
    // A cluster reports a failing node apart from itself; only 'error' marks the whole store troubled.
    this.client.on('node error', (err: Error) => options.onError?.(err));
  }

  async load(key: ConversationKey): Promise<ConversationRecord | null> {
    const recordKey = this.recordKey(key);
    return this.run('load', async () => {
      const fields = await this.client.recapLoad(recordKey, this.options.ttlMs);
      if (!fields) return null;
      const [version, checkpoints, updatedAt] = fields;
      return { version: Number(version), checkpoints: parseCheckpoints(checkpoints), updatedAt: Number(updatedAt) };
    });
  }

  async loadVersion(key: ConversationKey): Promise<number> {
    const recordKey = this.recordKey(key);
    return this.run('loadVersion', async () => Number(await this.client.recapLoadVersion(recordKey, this.options.ttlMs)));
  }

  async updateCheckpoints(key: ConversationKey, edit: CheckpointEdit, expectedVersion?: number): Promise<UpdateResult> {
    const recordKey = this.recordKey(key);
    return this.run('updateCheckpoints', async (remainingMs) => {
      let result: UpdateResult = { ok: false, current: 0 };
      for (let attempt = 0; attempt < EDIT_ATTEMPTS; attempt++) {
        // The edit runs here rather than in Lua, so both stores share one pure implementation; the
        // script's version check refuses the write if anyone wrote in between.
        const read = await readWithClock<[string | null, string | null]>(this.client, (p) => p.hmget(recordKey, 'v', 'd'));
        const [version, checkpoints] = read.reply;
        const current = Number(version ?? 0);
        if (expectedVersion !== undefined && current !== expectedVersion) return { ok: false, current };
        const next = edit(checkpoints ? parseCheckpoints(checkpoints) : [], Date.now());
        if (next === null) return { ok: true, version: current };
        const deadline = writeDeadline(read, remainingMs());
        const [ok, now] = await this.client.recapCompareAndSet(recordKey, deadline, current, JSON.stringify(next), Date.now(), this.options.ttlMs);
        result = ok === 1 ? { ok: true, version: now } : { ok: false, current: now };
        if (result.ok || expectedVersion !== undefined) return result;
      }
      return result;
    });
  }

  async delete(key: ConversationKey): Promise<boolean> {
    const recordKey = this.recordKey(key);
    return this.run('delete', async (remainingMs) => {
      const read = await readWithClock<number>(this.client, (p) => p.exists(recordKey));
      if (read.reply === 0) return false;
      return (await this.client.recapDelete(recordKey, writeDeadline(read, remainingMs()))) > 0;
    });
  }

  async readLocks(key: ConversationKey): Promise<LockTable> {
    const locksKey = this.locksKey(key);
    return this.run('readLocks', async () => {
      const read = await readWithClock<Record<string, string>>(this.client, (p) => p.hgetall(locksKey));
      return parseLocks(read.reply, read.serverMicros / 1000);
    });
  }

  async tryLock(key: ConversationKey, claim: LockClaim, ttlMs: number): Promise<LockGrant> {
    const locksKey = this.locksKey(key);
    return this.run('tryLock', async (remainingMs) => {
      const read = await readWithClock<Record<string, string>>(this.client, (p) => p.hgetall(locksKey));
      // Already held: no need to send the script to be refused.
      const seen = parseLocks(read.reply, read.serverMicros / 1000);
      if (seen.holders.some((h) => h.id === claim.id)) return { token: null, earlier: seen.holders };
      const token = newLockToken(ttlMs);
      const ttl = Math.max(1, Math.ceil(ttlMs));
      const [taken, ...held] = await this.client.recapLock(locksKey, writeDeadline(read, remainingMs()), claim.id, token, ttl, claim.prefix, claim.link);
      const fields: Record<string, string> = {};
      for (let i = 0; i + 1 < held.length; i += 2) fields[held[i]!] = held[i + 1]!;
      // The script listed live locks only.
      return { token: taken === 1 ? token : null, earlier: parseLocks(fields, 0).holders };
    });
  }

  async renewLock(key: ConversationKey, id: string, token: string, ttlMs: number): Promise<boolean> {
    const locksKey = this.locksKey(key);
    return this.run('renewLock', async () => (await this.client.recapRenew(locksKey, id, token, Math.max(1, Math.ceil(ttlMs)))) === 1);
  }

  async unlock(key: ConversationKey, id: string, token: string): Promise<void> {
    const locksKey = this.locksKey(key);
    const release = () =>
      this.run('unlock', async () => {
        await this.client.recapUnlock(locksKey, id, token);
      });
    try {
      await release();
    } catch (err) {
      this.releaseRetries.retry(token, release);
      throw err;
    }
  }

  async ping(): Promise<void> {
    return this.run('ping', async () => {
      await this.client.ping();
    });
  }

  state(): StoreState {
    if (this.closed) return 'down';
    if (this.client.status === 'ready') return 'ready';
    return this.troubled ? 'down' : 'connecting';
  }

  async close(): Promise<void> {
    this.closed = true;
    this.releaseRetries.close();
    const quit = this.client.quit().then(() => undefined);
    await withDeadline(quit, this.options.commandTimeoutMs, () => new Error('quit timed out')).catch(() => undefined);
    // Stops reconnecting even when QUIT could not be sent.
    this.client.disconnect();
  }

  /**
   * Runs one operation within the command timeout; whatever goes wrong becomes StoreUnavailableError.
   * `work` gets the time it has left, which bounds the deadline of any write it sends.
   */
  private run<T>(operation: string, work: (remainingMs: () => number) => Promise<T>): Promise<T> {
    const { commandTimeoutMs } = this.options;
    const giveUpAt = performance.now() + commandTimeoutMs;
    const guarded = work(() => giveUpAt - performance.now()).catch((err: unknown) => {
      const reason = err instanceof Error ? err.message : String(err);
      throw new StoreUnavailableError(`redis ${operation}: ${reason}`, { cause: err });
    });
    return withDeadline(guarded, commandTimeoutMs, () => new StoreUnavailableError(`redis ${operation}: no answer within ${commandTimeoutMs} ms`));
  }

  private recordKey(key: ConversationKey): string {
    return `${this.options.keyPrefix}:{${conversationTag(key)}}:rec`;
  }

  private locksKey(key: ConversationKey): string {
    return `${this.options.keyPrefix}:{${conversationTag(key)}}:locks`;
  }

  // A spend is counted even when it lands after recap gave up waiting: the tokens were spent, so a
  // late INCRBY only makes the count right. MULTI keeps the count and its expiry together.
  async addTenantSpend(tenant: string, windowStart: number, tokens: number, windowMs: number): Promise<number> {
    const key = `${this.options.keyPrefix}:${spendKey(tenant, windowStart)}`;
    return this.run('addTenantSpend', async () => {
      const replies = await this.client.multi().incrby(key, tokens).pexpire(key, spendTtlMs(windowMs)).exec();
      const [err, total] = replies?.[0] ?? [new Error('transaction discarded'), null];
      if (err) throw err;
      return Number(total);
    });
  }

  // With a deadline like every write: a reservation Redis ran after recap gave up would hold
  // tokens for a call that recap then counts on its own.
  async reserveTenantSpend(tenant: string, windowStart: number, tokens: number, limit: number, windowMs: number): Promise<number | null> {
    const key = `${this.options.keyPrefix}:${spendKey(tenant, windowStart)}`;
    return this.run('reserveTenantSpend', async (remainingMs) => {
      const read = await readWithClock<string | null>(this.client, (p) => p.get(key));
      if (!spendFits(Number(read.reply ?? 0), tokens, limit)) return null;
      const total = await this.client.recapReserveSpend(key, writeDeadline(read, remainingMs()), tokens, limit, spendTtlMs(windowMs));
      return total < 0 ? null : total;
    });
  }

  async tenantSpend(tenant: string, windowStart: number): Promise<number> {
    const key = `${this.options.keyPrefix}:${spendKey(tenant, windowStart)}`;
    return this.run('tenantSpend', async () => Number((await this.client.get(key)) ?? 0));
  }

  async markAccepted(id: string, ttlMs: number): Promise<void> {
    const key = `${this.options.keyPrefix}:${acceptedKey(id)}`;
    return this.run('markAccepted', async () => {
      await this.client.set(key, '1', 'PX', Math.max(1, Math.ceil(ttlMs)));
    });
  }

  async isAccepted(id: string): Promise<boolean> {
    const key = `${this.options.keyPrefix}:${acceptedKey(id)}`;
    return this.run('isAccepted', async () => (await this.client.exists(key)) > 0);
  }
}

/** The lock table's hash as read, without the locks that expired by Redis's clock `nowMs`. */
function parseLocks(fields: Record<string, string>, nowMs: number): LockTable {
  const holders: LockHolder[] = [];
  for (const [name, value] of Object.entries(fields)) {
    if (!name.startsWith('h:')) continue;
    const [token, expires, prefix, link] = value.split('|');
    if (Number(expires) <= nowMs || !token || !link) continue;
    holders.push({ id: name.slice(2), token, prefix: Number(prefix), link });
  }
  return { holders };
}

function parseCheckpoints(json: string): Checkpoint[] {
  const parsed: unknown = JSON.parse(json);
  if (!Array.isArray(parsed)) throw new Error('record holds no checkpoint list');
  return parsed as Checkpoint[];
}
