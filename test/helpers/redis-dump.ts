import { Redis } from 'ioredis';

// Every key under a prefix and every value in it, as one text, so a test can assert that a secret
// is nowhere in the store (key names included), whatever the store's layout.

export async function dumpRedis(url: string, prefix: string): Promise<{ keys: string[]; text: string }> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    const keys: string[] = [];
    for await (const batch of redis.scanStream({ match: `${prefix}*`, count: 200 })) keys.push(...(batch as string[]));
    const values = await Promise.all(keys.map((key) => valueOf(redis, key)));
    return { keys, text: keys.map((k, i) => `${k} ${values[i]}`).join('\n') };
  } finally {
    redis.disconnect();
  }
}

async function valueOf(redis: Redis, key: string): Promise<string> {
  switch (await redis.type(key)) {
    case 'string':
      return (await redis.get(key)) ?? '';
    case 'hash':
      return JSON.stringify(await redis.hgetall(key));
    case 'list':
      return JSON.stringify(await redis.lrange(key, 0, -1));
    case 'set':
      return JSON.stringify(await redis.smembers(key));
    case 'zset':
      return JSON.stringify(await redis.zrange(key, 0, -1, 'WITHSCORES'));
    default:
      // Any other type (a stream): its serialized form, raw bytes as text.
      return (await redis.dumpBuffer(key))?.toString('latin1') ?? '';
  }
}
