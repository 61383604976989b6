import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

// What the suite needs from the machine before any test runs: redis-server 7+ and redis-cli on
// the PATH (tests start throwaway servers and clusters), and a Redis answering at REDIS_URL
// (default redis://127.0.0.1:6379). One message names everything missing and how to fix it.

const run = promisify(execFile);

type Env = Record<string, string | undefined>;

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

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

/** Every problem found, empty when the suite can run. */
export async function redisProblems(env: Env = process.env): Promise<string[]> {
  const problems: string[] = [];
  const [server, cli] = await Promise.all([version('redis-server', env), version('redis-cli', env)]);
  if (server === undefined) problems.push('redis-server is not on the PATH');
  else if (Number(server.split('.')[0]) < 7) problems.push(`redis-server ${server} is too old: the suite needs 7 or later`);
  if (cli === undefined) problems.push('redis-cli is not on the PATH');
  const url = env.REDIS_URL || DEFAULT_REDIS_URL;
  if (cli !== undefined) {
    const failure = await answers(url, env);
    // The URL may carry a password: name only where it points.
    if (failure !== undefined) problems.push(`no Redis answers at ${url.replace(/\/\/[^@/]*@/, '//')} (${failure})`);
  }
  return problems;
}

export function redisAdvice(problems: string[]): string {
  return [
    "recap's test suite needs Redis, and found:",
    ...problems.map((p) => `  - ${p}`),
    'Install Redis 7+ (Debian/Ubuntu: apt-get install redis-server, which brings redis-cli; macOS: brew install redis),',
    `then start one (redis-server --daemonize yes) or point REDIS_URL at one (default ${DEFAULT_REDIS_URL}).`,
  ].join('\n');
}
