// Child processes of the overhead bench: spawn on loopback, wait until ready (bounded), stop.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export interface Child {
  name: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
// A bench that dies half-way must not leave servers behind.
process.once('exit', () => {
  for (const p of running) p.kill('SIGKILL');
});

/** A port that was free a moment ago; for children that cannot report the one they bound. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface SpawnOptions {
  env?: Record<string, string | undefined>;
  /** Keep stdout readable (to read a printed URL); otherwise it goes nowhere. */
  readStdout?: boolean;
  /** A command that runs node (`valgrind --tool=callgrind`, say): `[...wrapper, node, ...args]`. */
  wrapper?: string[];
}

/** Runs `node [args]` from the repository root. */
export function spawnNode(name: string, args: string[], opts: SpawnOptions = {}): Child {
  const [command, ...prefix] = opts.wrapper?.length ? [...opts.wrapper, process.execPath] : [process.execPath];
  const child = spawn(command!, [...prefix, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', opts.readStdout ? 'pipe' : 'ignore', 'pipe'],
  });
  running.add(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('exit', (code, signal) => {
    running.delete(child);
    if (code && code !== 0) process.stderr.write(`[${name}] exited with ${String(code ?? signal)}: ${stderr}\n`);
  });
  return {
    name,
    process: child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const stopped = await Promise.race([exited.then(() => true), sleep(3000).then(() => false)]);
      if (!stopped) {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}

/** The first stdout line that looks like a URL, within `timeoutMs`. */
export function printedUrl(child: Child, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`${child.name}: no URL printed within ${timeoutMs} ms`)), timeoutMs);
    child.process.once('exit', () => reject(new Error(`${child.name}: exited before printing its URL`)));
    child.process.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const match = /https?:\/\/\S+/.exec(text);
      if (match) {
        clearTimeout(timer);
        resolve(match[0]);
      }
    });
  });
}

/** Polls `url` every 10 ms until it answers `status`; returns the ms waited. Bounded by `timeoutMs`. */
export async function waitForStatus(url: string, status: number, timeoutMs: number, child?: Child): Promise<number> {
  const start = performance.now();
  while (performance.now() - start < timeoutMs) {
    if (child && child.process.exitCode !== null) throw new Error(`${child.name}: exited while starting`);
    try {
      const res = await request(url, { headersTimeout: 1000, bodyTimeout: 1000 });
      await res.body.dump();
      if (res.statusCode === status) return performance.now() - start;
    } catch {
      // not listening yet
    }
    await sleep(10);
  }
  throw new Error(`${url} did not answer ${status} within ${timeoutMs} ms`);
}
