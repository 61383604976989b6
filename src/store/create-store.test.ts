import { describe, expect, it } from 'vitest';
import { freePorts } from '../../test/helpers/redis-process.js';
import { storeSchema } from '../config/schema.js';
import { createStore } from './create-store.js';

describe('createStore', () => {
  it('makes the in-memory store when no url is configured', async () => {
    const store = await createStore(storeSchema.parse({}));
    expect(store.kind).toBe('memory');
    await store.close();
  });

  it('makes the Redis store for a url', async () => {
    const store = await createStore(storeSchema.parse({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' }));
    expect(store.kind).toBe('redis');
    expect(store.state()).toBe('ready');
    await store.close();
  });

  it('still makes the Redis store when Redis is unreachable, reporting it down', async () => {
    const [port] = await freePorts(1);
    const errors: Error[] = [];
    const store = await createStore(storeSchema.parse({ url: `redis://127.0.0.1:${port}` }), { onError: (err) => errors.push(err) });
    expect(store.state()).toBe('down');
    expect(errors.length).toBeGreaterThan(0);
    await expect(store.ping()).rejects.toMatchObject({ code: 'store_unavailable' });
    await store.close();
  });
});
