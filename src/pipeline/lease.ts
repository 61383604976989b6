import type { ConversationKey } from '../store/store.js';
import type { Records } from './records.js';

// A compaction claim is a short lease that its holder renews while it works (the summarizer call,
// and when the provisional checkpoint could not be written, the turn's reply). A process that dies
// (SIGKILL, OOM, a lost host) stops renewing, and its claim lapses within one lease: the requests
// waiting on it, or the next ones, compact instead of waiting out the summarizer's timeout. A
// renewal that cannot reach the store is tried again on the next beat; a lease that lapsed anyway
// (a store outage longer than the lease) costs at most one more summarizer call, never a wrong
// record (writes are compare-and-set).

/** How long a claim lives without a renewal. */
export const LEASE_MS = 3_000;
/** Renewed this often: two renewals in a row may fail before the lease lapses. */
const RENEW_EVERY_MS = 1_000;

export interface HeldClaim {
  id: string;
  token: string;
  /** Stops renewing and releases the claim; later calls do nothing. */
  release(): Promise<void>;
}

/** Keeps the claim `id` (held with `token`) alive until released or lost. */
export function holdLease(records: Records, key: ConversationKey, id: string, token: string): HeldClaim {
  let released = false;
  let timer: NodeJS.Timeout | undefined;
  let lastRenewed = Date.now();
  const beat = () => {
    timer = setTimeout(async () => {
      const renewed = await records.renewLock(key, id, token, LEASE_MS);
      if (renewed === true) lastRenewed = Date.now();
      // Lost, or lapsed while the store could not be reached (it may be someone else's now): done.
      const lapsed = renewed === false || Date.now() - lastRenewed >= LEASE_MS;
      if (!lapsed && !released) beat();
    }, RENEW_EVERY_MS);
    // A lease never keeps the process alive: it lapses by itself.
    timer.unref();
  };
  beat();
  return {
    id,
    token,
    async release() {
      if (released) return;
      released = true;
      clearTimeout(timer);
      await records.unlock(key, id, token);
    },
  };
}
