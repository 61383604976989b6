import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { CLI } from './cli-build.js';
import { TEST_SECRET } from './harness.js';
import { onTestProcessExit } from './on-test-process-exit.js';
import { processStats } from './procfs.js';

// recap as a separate OS process (`recap serve`), for restarts and for several replicas sharing
// one Redis. Its JSON log lines are collected; the listening URL is read from the first of them.
// Whatever it starts it also ends: a start-up that fails (exits, never listens, never gets ready)
// kills the process group and removes the temp folder before the error reaches the test, and a
// test run that dies kills what is left and removes the folders on its way out.

export interface RecapProcess {
  url: string;
  pid: number;
  logs: string[];
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface RecapProcessOptions {
  /** More `recap serve` arguments, e.g. ['--workers', '2']. */
  args?: string[];
  /** Until the first `recap listening` log line. */
  startTimeoutMs?: number;
  /** Until GET /readyz answers 200 after that. */
  readyTimeoutMs?: number;
}

/** A start-up that failed; by the time it is thrown the process group is gone. */
export class RecapStartError extends Error {
  constructor(
    message: string,
    readonly pid: number | undefined,
    readonly tempDir: string | undefined,
  ) {
    super(message);
    this.name = 'RecapStartError';
  }
}

const ROOT = join(import.meta.dirname, '..', '..');

const leftovers = { dirs: new Set<string>(), groups: new Set<number>() };
onTestProcessExit(() => {
  for (const pid of leftovers.groups) killGroup(pid, 'SIGKILL');
  for (const dir of leftovers.dirs) rmSync(dir, { recursive: true, force: true });
});

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/** Live processes of a process group (its primary's workers outlive it by a moment). */
function groupMembers(pgid: number): number[] {
  return processStats()
    .filter((p) => p.pgrp === pgid && p.state !== 'Z')
    .map((p) => p.pid);
}

async function untilGroupGone(pgid: number, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (groupMembers(pgid).length > 0 && Date.now() < deadline) {
    killGroup(pgid, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function tempDir(): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'recap-config-'));
  leftovers.dirs.add(dir);
  return {
    dir,
    remove: async () => {
      await rm(dir, { recursive: true, force: true });
      leftovers.dirs.delete(dir);
    },
  };
}

export async function writeConfigFile(config: unknown): Promise<{ file: string; cleanup(): Promise<void> }> {
  const { dir, remove } = await tempDir();
  const file = join(dir, 'recap.json');
  await writeFile(file, JSON.stringify(config));
  return { file, cleanup: remove };
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Waits for the `recap listening` line (the primary's, with --workers) and returns its URL. */
function listeningUrl(child: ChildProcess, logs: string[], stderr: () => string, timeoutMs: number): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`recap did not start within ${timeoutMs} ms: ${stderr()}`)), timeoutMs);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      logs.push(line);
      try {
        const entry = JSON.parse(line) as { msg?: string; url?: string; worker?: number };
        if (entry.msg === 'recap listening' && entry.url && entry.worker === undefined) {
          clearTimeout(timer);
          resolve(entry.url);
        }
      } catch {
        // not a log line
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`recap exited with ${code ?? signal}: ${stderr()}`));
    });
  });
}

async function untilReady(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (
    (await fetch(`${url}/readyz`).then(
      (r) => r.status,
      () => 0,
    )) !== 200
  ) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`recap exited with ${child.exitCode ?? child.signalCode} before it was ready`);
    if (Date.now() > deadline) throw new Error(`recap did not become ready within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Starts `recap serve` on a free port. `config` is a config file's path, or a config object that
 * the helper writes to a temp folder of its own (removed on stop and on every failure).
 */
export async function startRecapProcess(config: string | object, env: Record<string, string> = {}, opts: RecapProcessOptions = {}): Promise<RecapProcess> {
  const own = typeof config === 'string' ? undefined : await tempDir();
  let child: ChildProcess | undefined;
  try {
    const file = own ? join(own.dir, 'recap.json') : (config as string);
    if (own) await writeFile(file, JSON.stringify(config));
    // Its own process group, so that a failure path can end it with every worker it forked.
    // The config decides the store: a REDIS_URL in the test run's environment (CI exports one)
    // would override it and turn a test's in-memory or unreachable store into the shared Redis.
    const spawned = spawn(process.execPath, [CLI, 'serve', '--config', file, '--port', '0', ...(opts.args ?? [])], {
      cwd: ROOT,
      env: { ...process.env, REDIS_URL: '', RECAP_SECRET: TEST_SECRET, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    child = spawned;
    leftovers.groups.add(spawned.pid!);
    spawned.once('exit', () => leftovers.groups.delete(spawned.pid!));
    const logs: string[] = [];
    let stderr = '';
    spawned.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const url = await listeningUrl(spawned, logs, () => stderr, opts.startTimeoutMs ?? 20_000);
    // Like a load balancer, send traffic only once recap reports ready (its store answers).
    await untilReady(url, spawned, opts.readyTimeoutMs ?? 20_000);
    return {
      url,
      pid: spawned.pid!,
      logs,
      stop: async (signal = 'SIGTERM') => {
        if (spawned.exitCode === null && spawned.signalCode === null) {
          const gone = exited(spawned);
          spawned.kill(signal);
          await gone;
        }
        await own?.remove();
        return spawned.exitCode;
      },
    };
  } catch (err) {
    const pid = child?.pid;
    if (child && pid !== undefined) {
      const gone = exited(child);
      killGroup(pid, 'SIGKILL');
      await gone;
      await untilGroupGone(pid);
    }
    await own?.remove();
    throw new RecapStartError((err as Error).message, pid, own?.dir);
  }
}

/**
 * Starts one recap per config at once (replicas sharing a store). When any start-up fails, the
 * ones that did start are stopped before the error reaches the test: Promise.all alone would leave
 * them running, their handles lost with the rejection.
 */
export async function startRecapProcesses<const C extends readonly (string | object)[]>(
  configs: C,
  env: Record<string, string> = {},
  opts: RecapProcessOptions = {},
): Promise<{ -readonly [K in keyof C]: RecapProcess }> {
  const settled = await Promise.allSettled(configs.map((c) => startRecapProcess(c, env, opts)));
  const started = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failure = settled.find((s) => s.status === 'rejected');
  if (failure) {
    await Promise.all(started.map((p) => p.stop()));
    throw failure.reason;
  }
  return started as { -readonly [K in keyof C]: RecapProcess };
}
