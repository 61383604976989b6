import { describe, expect, it } from 'vitest';
import { redisAdvice, redisProblems } from './helpers/redis-check.js';

// The suite's first check (test/global-setup.ts), run against this machine's real binaries.

describe('the Redis check before the suite', () => {
  it('finds nothing wrong on a machine with Redis', async () => {
    expect(await redisProblems()).toEqual([]);
  });

  it('names each missing binary and says what to install', async () => {
    const problems = await redisProblems({ ...process.env, PATH: '/nonexistent' });
    expect(problems).toEqual(['redis-server is not on the PATH', 'redis-cli is not on the PATH']);
    const advice = redisAdvice(problems);
    expect(advice).toContain('apt-get install redis-server');
    expect(advice).toContain('REDIS_URL');
  });

  it('says where no Redis answers, without the password in the URL', async () => {
    const problems = await redisProblems({ ...process.env, REDIS_URL: 'redis://user:hunter2@127.0.0.1:1' });
    expect(problems).toEqual([expect.stringMatching(/^no Redis answers at redis:\/\/127\.0\.0\.1:1 \(/)]);
    expect(problems.join('')).not.toContain('hunter2');
  });
});
