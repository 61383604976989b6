import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { parseRedisUrl } from './redis-url.js';

// An ioredis client tuned to fail open (DESIGN rule 8): a command either gets an answer within the
// command timeout or fails at once, and nothing is queued to be replayed after an outage, when it
// would be stale (a lock or checkpoint written long after its request gave up).

/** Short: while connecting, commands already fail fast; this only bounds one connection attempt. */
export const CONNECT_TIMEOUT_MS = 1_000;

/** Keeps reconnecting forever with a capped backoff, so recap recovers by itself when Redis returns. */
export function reconnectDelay(attempt: number): number {
  return Math.min(50 * 2 ** attempt, 2_000);
}

function failFastOptions(commandTimeoutMs: number): RedisOptions {
  return {
    lazyConnect: false,
    enableOfflineQueue: false,
    // Commands in flight when the connection drops are rejected, never resent on reconnect.
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    commandTimeout: commandTimeoutMs,
    connectTimeout: CONNECT_TIMEOUT_MS,
    retryStrategy: reconnectDelay,
  };
}

export function createRedisClient(url: string, commandTimeoutMs: number): Redis | Cluster {
  const target = parseRedisUrl(url);
  if (target.mode === 'standalone') return new Redis(target.url, failFastOptions(commandTimeoutMs));
  const { username, password, tls } = target;
  return new Cluster(target.nodes, {
    lazyConnect: false,
    enableOfflineQueue: false,
    clusterRetryStrategy: reconnectDelay,
    // No delayed retries on a lost node or CLUSTERDOWN: such a retry could run after the caller gave up.
    retryDelayOnFailover: 0,
    retryDelayOnClusterDown: 0,
    slotsRefreshTimeout: CONNECT_TIMEOUT_MS,
    redisOptions: {
      ...failFastOptions(commandTimeoutMs),
      ...(username === undefined ? {} : { username }),
      ...(password === undefined ? {} : { password }),
      ...(tls ? { tls: {} } : {}),
    },
  });
}
