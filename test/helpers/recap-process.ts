import { type ChildProcess, spawn } from 'node:child_process';
import { writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { TEST_SECRET } from './harness.js';

// recap as a separate OS process (`recap serve`), for restarts and for several replicas sharing
// one Redis. Its JSON log lines are collected; the listening URL is read from the first of them.

export interface RecapProcess {
  url: string;
  pid: number;
  logs: string[];
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

const ROOT = join(import.meta.dirname, '..', '..');

export async function writeConfigFile(config: unknown): Promise<{ file: string; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'recap-config-'));
  const file = join(dir, 'recap.json');
  await writeFile(file, JSON.stringify(config));
  return { file, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export async function startRecapProcess(configFile: string, env: Record<string, string> = {}): Promise<RecapProcess> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli.ts'), 'serve', '--config', configFile, '--port', '0'], {
    cwd: ROOT,
    env: { ...process.env, RECAP_SECRET: TEST_SECRET, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: string[] = [];
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`recap did not start in time: ${stderr}`)), 20_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      logs.push(line);
      try {
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === 'recap listening' && entry.url) {
          clearTimeout(timer);
          resolve(entry.url);
        }
      } catch {
        // not a log line
      }
    });
    child.once('exit', (code) => reject(new Error(`recap exited with ${code}: ${stderr}`)));
  });
  // Like a load balancer, send traffic only once recap reports ready (its store answers).
  const deadline = Date.now() + 20_000;
  while ((await fetch(`${url}/readyz`).then((r) => r.status, () => 0)) !== 200) {
    if (Date.now() > deadline) throw new Error('recap did not become ready in time');
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    pid: child.pid!,
    logs,
    stop: (signal = 'SIGTERM') =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill(signal);
      }),
  };
}
