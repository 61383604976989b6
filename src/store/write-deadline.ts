import type { ChainableCommander, Cluster, Redis } from 'ioredis';

// A write that Redis runs after its caller gave up is a stale write: a lock nobody will release, a
// checkpoint the request reported as not written. Closing the connection does not stop it (a frozen
// Redis — DEBUG SLEEP, SIGSTOP — still reads and runs the bytes already in its socket once it
// wakes), so every write script carries a deadline and refuses to apply after it.
//
// The deadline is in Redis's own clock, so no clock is shared between hosts: a read pipelined after
// TIME tells the operation what Redis's clock said at that point, and the deadline is that reading
// plus what is left of the operation's time bound. The reading came before the reply reached
// recap, so the deadline falls at or before the moment recap gives up (earlier only by the reply's
// transit). The one assumption: during one operation (≤ store.command_timeout_ms) the two clocks
// run at the same rate, i.e. the Redis host's clock is not stepped within that window.

export interface ClockedRead<T> {
  /** Redis's clock when the read ran, in µs since the epoch. */
  serverMicros: number;
  reply: T;
}

/** Runs one keyed read right after TIME in one pipeline, so both run on the key's node (cluster too). */
export async function readWithClock<T>(client: Redis | Cluster, read: (pipeline: ChainableCommander) => ChainableCommander): Promise<ClockedRead<T>> {
  const results = (await read(client.pipeline().time()).exec()) ?? [];
  const failure = results.find(([err]) => err);
  if (failure) throw failure[0];
  const [[, time], [, reply]] = results as [[null, [string, string]], [null, T]];
  return { serverMicros: Number(time[0]) * 1e6 + Number(time[1]), reply };
}

/** The deadline (Redis µs) for a write sent now; throws when the operation's time is already up. */
export function writeDeadline(read: ClockedRead<unknown>, remainingMs: number): number {
  if (remainingMs <= 0) throw new Error('no time left to write');
  return read.serverMicros + Math.floor(remainingMs * 1000);
}
