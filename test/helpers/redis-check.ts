import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

// What the suite needs from the machine before any test runs: redis-server 7+ and redis-cli on
// the PATH (tests start throwaway servers and clusters), and a Redis at REDIS_URL (default
// redis://127.0.0.1:6379). When the binaries are there but nothing answers, the suite starts a
// throwaway server of its own (test/global-setup.ts); when a binary is missing, one message names
// everything missing and how to fix it.

const run = promisify(execFile);

type Env = Record<string, string | undefined>;

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/** What the machine has: the binaries' versions (undefined: not on the PATH), and whether a Redis answers. */
export interface MachineRedis {
  server: string | undefined;
  cli: string | undefined;
  /** Where the suite looks for Redis, without a password. */
  where: string;
  /** Why nothing answers there; undefined when a Redis does (or when redis-cli is missing to ask). */
  failure: string | undefined;
}

/** Use the Redis that answers; start one of our own; or stop with advice. */
export type RedisPlan = { kind: 'use' } | { kind: 'start'; reason: string } | { kind: 'advise'; problems: string[] };

async function version(binary: string, env: Env): Promise<string | undefined> {
  try {
    const { stdout } = await run(binary, ['--version'], { env, timeout: 5_000 });
    return /v=(\d+\.\d+\.\d+)|(\d+\.\d+\.\d+)/.exec(stdout)?.slice(1).find(Boolean) ?? stdout.trim();
  } catch {
    return undefined;
  }
}

async function answers(url: string, env: Env): Promise<string | undefined> {
  try {
    const { stdout } = await run('redis-cli', ['-u', url, 'ping'], { env, timeout: 5_000 });
    return stdout.trim() === 'PONG' ? undefined : stdout.trim() || 'no reply';
  } catch (err) {
    return ((err as { stderr?: string }).stderr ?? (err as Error).message).trim().split('\n')[0];
  }
}

export async function inspectRedis(env: Env = process.env): Promise<MachineRedis> {
  const [server, cli] = await Promise.all([version('redis-server', env), version('redis-cli', env)]);
  const url = env.REDIS_URL || DEFAULT_REDIS_URL;
  // The URL may carry a password: name only where it points.
  return { server, cli, where: url.replace(/\/\/[^@/]*@/, '//'), failure: cli === undefined ? undefined : await answers(url, env) };
}

/** Pure: what the suite does about Redis on a machine like `found`. */
export function planRedis(found: MachineRedis): RedisPlan {
  const problems: string[] = [];
  if (found.server === undefined) problems.push('redis-server is not on the PATH');
  else if (Number(found.server.split('.')[0]) < 7) problems.push(`redis-server ${found.server} is too old: the suite needs 7 or later`);
  if (found.cli === undefined) problems.push('redis-cli is not on the PATH');
  const silent = found.failure === undefined ? undefined : `no Redis answers at ${found.where} (${found.failure})`;
  if (problems.length > 0) return { kind: 'advise', problems: silent === undefined ? problems : [...problems, silent] };
  return silent === undefined ? { kind: 'use' } : { kind: 'start', reason: silent };
}

export function redisAdvice(problems: string[]): string {
  return [
    "recap's test suite needs Redis, and found:",
    ...problems.map((p) => `  - ${p}`),
    'Install Redis 7+ (Debian/Ubuntu: apt-get install redis-server, which brings redis-cli; macOS: brew install redis);',
    `the suite then uses the Redis at REDIS_URL (default ${DEFAULT_REDIS_URL}), or starts a throwaway one when none answers.`,
  ].join('\n');
}
