// recap as a bench target, in its own process (`recap serve`), with a model entry whose context
// window is so large that no request of the bench is ever compacted: what remains is overhead.
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, spawnNode, waitForStatus, type Child } from './overhead-processes.js';

export const BENCH_SECRET = 'recap-overhead-bench-secret';
const CONFIG_FILE = join(tmpdir(), `recap-bench-overhead-${process.pid}.yaml`);

export function redisUrl(): string {
  return process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
}

/** The bench's recap config: one upstream (the fake), `gpt-bench*` with a 1M-token window; `events: false` turns events off. */
export function benchConfigYaml(upstreamUrl: string, logLevel = 'info', opts: { events?: boolean } = {}): string {
  return [
    'server:',
    `  log_level: ${logLevel}`,
    'upstreams:',
    '  fake:',
    `    base_url: ${upstreamUrl}`,
    'models:',
    '  - match: "gpt-bench*"',
    '    upstream: fake',
    '    context_window: 1000000',
    '    max_output_tokens: 4096',
    '    encoding: o200k_base',
    '    compaction:',
    '      strategy: summarize',
    '      summarizer: { model: gpt-bench-summarizer }',
    ...(opts.events === false ? ['events:', '  enabled: false'] : []),
    '',
  ].join('\n');
}

export interface RecapChild {
  child: Child;
  url: string;
  /** From spawn to the first `GET /readyz` 200. */
  startupMs: number;
}

/** How to run recap's CLI: from source through tsx, or a compiled cli.js (overhead-build.ts). */
export const FROM_SOURCE = ['--import', 'tsx', 'src/cli.ts'];

export interface RecapChildOptions {
  /** The config to serve instead of benchConfigYaml's. */
  configYaml?: string;
  /** Keep recap's stdout (its log lines) readable. */
  readStdout?: boolean;
  /** Environment over the defaults (`REDIS_URL: undefined`: the in-memory store). */
  env?: Record<string, string | undefined>;
  /** What runs node (spawnNode's `wrapper`), and how long recap may take to be ready then. */
  wrapper?: string[];
  readyTimeoutMs?: number;
}

/** Spawns `recap serve` (Redis store from REDIS_URL) and waits for /readyz; `workers` > 1 adds `--workers`. */
export async function startRecapChild(upstreamUrl: string, cli: string[] = FROM_SOURCE, workers = 1, opts: RecapChildOptions = {}): Promise<RecapChild> {
  await writeFile(CONFIG_FILE, opts.configYaml ?? benchConfigYaml(upstreamUrl));
  const port = await freePort();
  const spawnedAt = performance.now();
  const workerArgs = workers > 1 ? ['--workers', String(workers)] : [];
  const child = spawnNode(workers > 1 ? `recap x${workers}` : 'recap', [...cli, 'serve', '--config', CONFIG_FILE, '--port', String(port), ...workerArgs], {
    env: { REDIS_URL: redisUrl(), RECAP_SECRET: BENCH_SECRET, ...opts.env },
    readStdout: opts.readStdout,
    wrapper: opts.wrapper,
  });
  const origin = `http://127.0.0.1:${port}`;
  try {
    await waitForStatus(`${origin}/readyz`, 200, opts.readyTimeoutMs ?? 20_000, child);
  } catch (err) {
    await child.stop();
    throw err;
  }
  return { child, url: `${origin}/v1`, startupMs: performance.now() - spawnedAt };
}

export async function removeBenchConfig(): Promise<void> {
  await rm(CONFIG_FILE, { force: true });
}
