import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildCli } from './helpers/cli-build.js';
import { inspectRedis, planRedis, redisAdvice } from './helpers/redis-check.js';
import { startRedisServer } from './helpers/redis-server.js';

// Runs once, before any test file. First scripts/provision.sh (shared with .ci/run): as root with
// apt-get it installs redis-server and Chromium when missing; elsewhere it names in one line what
// to install, and the run stops there. Without redis-server or redis-cli every Redis test would fail
// on its own with `spawn ENOENT`: this stops the run first with one message instead. (Thrown,
// vitest would bury the message under a stack trace and "No test files found".) With both but no
// Redis answering at REDIS_URL, it starts a throwaway server (nothing persisted) for the run:
// the test workers, forked after this, inherit its REDIS_URL; the teardown stops it. Then the
// source is transpiled for the recap processes the tests start (helpers/cli-build.ts).
export default async function checkMachine(): Promise<(() => Promise<void>) | undefined> {
  const provision = spawnSync('bash', [fileURLToPath(new URL('../scripts/provision.sh', import.meta.url))], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (provision.status !== 0) process.exit(1);
  await buildCli();
  const plan = planRedis(await inspectRedis());
  if (plan.kind === 'use') return undefined;
  if (plan.kind === 'advise') {
    process.stderr.write(`\n${redisAdvice(plan.problems)}\n\n`);
    process.exit(1);
  }
  const redis = await startRedisServer();
  process.env.REDIS_URL = redis.url;
  process.stderr.write(`${plan.reason}: the suite runs on a throwaway redis-server at ${redis.url}\n`);
  return () => redis.stop();
}
