// store.url forms:
//   redis://[user:password@]host[:port][/db]        one Redis server (ioredis parses it)
//   rediss://...                                     the same over TLS
//   redis+cluster://[user:password@]host[:port][,host[:port]...]   Redis Cluster, seed nodes
//   rediss+cluster://...                             Redis Cluster over TLS
// There is no standard URL for a cluster, so the scheme says "cluster" and the authority lists
// seed nodes; the client discovers the rest with CLUSTER SLOTS. Errors never echo the URL,
// since it may carry a password.

export interface RedisNode {
  host: string;
  port: number;
}

export type RedisTarget = { mode: 'standalone'; url: string } | { mode: 'cluster'; nodes: RedisNode[]; username?: string; password?: string; tls: boolean };

const DEFAULT_PORT = 6379;
const CLUSTER_URL = /^(rediss?)\+cluster:\/\/(?:([^@/]*)@)?([^/?#]+)\/?$/;

function parseNode(text: string): RedisNode {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+))(?::(\d+))?$/.exec(text);
  const host = match?.[1] ?? match?.[2];
  const port = match?.[3] === undefined ? DEFAULT_PORT : Number(match[3]);
  if (!host || port < 1 || port > 65535) {
    throw new Error(`store.url: cluster node "${text}" is not host[:port]`);
  }
  return { host, port };
}

export function parseRedisUrl(url: string): RedisTarget {
  if (/^rediss?:\/\//.test(url)) return { mode: 'standalone', url };
  const match = CLUSTER_URL.exec(url);
  if (!match) {
    throw new Error('store.url: expected redis://, rediss://, redis+cluster:// or rediss+cluster://host:port[,host:port...]');
  }
  const [, scheme, auth, hosts = ''] = match;
  const target: RedisTarget = { mode: 'cluster', nodes: hosts.split(',').map(parseNode), tls: scheme === 'rediss' };
  if (auth) {
    // As ioredis reads redis:// URLs: "user:password", ":password" or "user".
    const colon = auth.indexOf(':');
    const username = decodeURIComponent(colon === -1 ? auth : auth.slice(0, colon));
    if (username) target.username = username;
    if (colon !== -1) target.password = decodeURIComponent(auth.slice(colon + 1));
  }
  return target;
}
