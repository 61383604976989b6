import { describe, expect, it } from 'vitest';
import { inspectRedis, type MachineRedis, planRedis, redisAdvice } from './helpers/redis-check.js';
import { startRedisServer } from './helpers/redis-server.js';

// The suite's first step (test/global-setup.ts): what it finds on the machine, and what it does
// about it. The decision is checked on made-up machines (the real Redis on 6379 keeps running).

const machine = (over: Partial<MachineRedis> = {}): MachineRedis => ({ server: '7.2.4', cli: '7.2.4', where: 'redis://127.0.0.1:6379', failure: undefined, ...over });

describe('what the suite does about Redis', () => {
  it('uses the Redis that answers', () => {
    expect(planRedis(machine())).toEqual({ kind: 'use' });
  });

  it('starts its own when the binaries are there and nothing answers', () => {
    expect(planRedis(machine({ failure: 'Could not connect to Redis at 127.0.0.1:6379: Connection refused' }))).toEqual({
      kind: 'start',
      reason: 'no Redis answers at redis://127.0.0.1:6379 (Could not connect to Redis at 127.0.0.1:6379: Connection refused)',
    });
  });

  it('stops with one message naming each missing or old binary, and says what to install', () => {
    expect(planRedis(machine({ server: undefined, cli: undefined }))).toEqual({ kind: 'advise', problems: ['redis-server is not on the PATH', 'redis-cli is not on the PATH'] });
    expect(planRedis(machine({ server: undefined, failure: 'Connection refused' }))).toEqual({
      kind: 'advise',
      problems: ['redis-server is not on the PATH', 'no Redis answers at redis://127.0.0.1:6379 (Connection refused)'],
    });
    expect(planRedis(machine({ server: '6.0.16' }))).toEqual({ kind: 'advise', problems: ['redis-server 6.0.16 is too old: the suite needs 7 or later'] });
    const advice = redisAdvice(['redis-server is not on the PATH']);
    expect(advice).toContain('apt-get install redis-server');
    expect(advice).toContain('REDIS_URL');
  });
});

describe('what the suite finds on this machine', () => {
  it('finds both binaries and the Redis at REDIS_URL', async () => {
    const found = await inspectRedis();
    expect(found.server).toMatch(/^\d+\.\d+\.\d+$/);
    expect(found.cli).toMatch(/^\d+\.\d+\.\d+$/);
    expect(found.failure).toBeUndefined();
  });

  it('finds no binary on an empty PATH', async () => {
    const found = await inspectRedis({ ...process.env, PATH: '/nonexistent' });
    expect(planRedis(found)).toEqual({ kind: 'advise', problems: ['redis-server is not on the PATH', 'redis-cli is not on the PATH'] });
  });

  it('says where no Redis answers, without the password in the URL, and a throwaway server then answers there', async () => {
    const redis = await startRedisServer();
    const url = redis.url.replace('//', '//user:hunter2@');
    await redis.stop();
    const silent = planRedis(await inspectRedis({ ...process.env, REDIS_URL: url }));
    expect(silent).toMatchObject({ kind: 'start', reason: expect.stringMatching(new RegExp(`^no Redis answers at redis://127\\.0\\.0\\.1:${redis.port} \\(`)) });
    expect(JSON.stringify(silent)).not.toContain('hunter2');
    const own = await startRedisServer();
    try {
      expect(planRedis(await inspectRedis({ ...process.env, REDIS_URL: own.url }))).toEqual({ kind: 'use' });
    } finally {
      await own.stop();
    }
  });
});
