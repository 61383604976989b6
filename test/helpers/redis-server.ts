import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { freePorts, killProcess, spawnRedisServer } from './redis-process.js';

// A standalone redis-server of its own, for tests that take Redis away mid-test (outages).

export interface ThrowawayRedis {
  url: string;
  port: number;
  /** SIGKILL: the server vanishes without closing anything politely. */
  kill(): Promise<void>;
  /** SIGSTOP: connections stay open but nothing answers. */
  pause(): void;
  /** Starts the server again on the same port (after kill). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** `extraArgs` are redis-server options, e.g. `['--enable-debug-command', 'local']` for DEBUG SLEEP. */
export async function startRedisServer(extraArgs: string[] = []): Promise<ThrowawayRedis> {
  const [port = 0] = await freePorts(1);
  const dir = await mkdtemp(join(tmpdir(), 'recap-redis-'));
  let child: ChildProcess = await spawnRedisServer(port, dir, extraArgs).catch(async (err: unknown) => {
    await rm(dir, { recursive: true, force: true });
    throw err;
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill: () => killProcess(child, 'SIGKILL'),
    pause: () => {
      child.kill('SIGSTOP');
    },
    restart: async () => {
      await killProcess(child, 'SIGKILL');
      child = await spawnRedisServer(port, dir, extraArgs);
    },
    stop: async () => {
      await killProcess(child, 'SIGKILL');
      await rm(dir, { recursive: true, force: true });
    },
  };
}
