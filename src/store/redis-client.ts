import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { parseRedisUrl } from '../config/redis-url.js';

// An ioredis client tuned to fail open (docs/design.md rule 8): a command either gets an answer within the
// command timeout or fails at once, and nothing is queued to be replayed after an outage, when it
// would be stale (a lock or checkpoint written long after its request gave up). A write already on
// the wire when Redis froze is refused by its own deadline instead (write-deadline.ts).

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
    // Only a backstop that drops a command no reply will come for: the store's bound is its own
    // (RedisStore.run, deadline.ts), which, unlike this timer, reads a reply that already arrived.
    commandTimeout: 2 * commandTimeoutMs + CONNECT_TIMEOUT_MS,
    connectTimeout: CONNECT_TIMEOUT_MS,
    retryStrategy: reconnectDelay,
  };
}

export function createRedisClient(url: string, commandTimeoutMs: number): Redis | Cluster {
  const target = parseRedisUrl(url);
  if (target.mode === 'standalone') return new Redis(target.url, failFastOptions(commandTimeoutMs));
  const { username, password, tls } = target;
  const cluster = new Cluster(target.nodes, {
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
  // ioredis connects to each node lazily, on its first command, and while that connection is
  // being made the cluster (offline queue off) rejects every other command for the node. Connecting
  // as soon as a node is known confines that window to boot and topology changes.
  cluster.on('+node', (node: Redis) => {
    node.connect().catch(() => undefined);
  });
  return cluster;
}

function isConnected(client: Redis | Cluster): boolean {
  if (client.status !== 'ready') return false;
  return !(client instanceof Cluster) || client.nodes('master').every((node) => node.status === 'ready');
}

/**
 * Resolves once the client (and, on a cluster, every master) is ready, or at its first error, or
 * after `timeoutMs`; never rejects, since recap must boot even while Redis is down.
 */
export function whenConnected(client: Redis | Cluster, timeoutMs: number): Promise<void> {
  if (isConnected(client)) return Promise.resolve();
  return new Promise((resolve) => {
    const finish = () => {
      clearTimeout(timer);
      clearInterval(poll);
      client.off('error', finish);
      resolve();
    };
    const timer = setTimeout(finish, timeoutMs);
    // Polling, because a cluster's readiness spans the cluster's and each master's own events.
    const poll = setInterval(() => isConnected(client) && finish(), 10);
    client.once('error', finish);
  });
}
