import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onTestProcessExit } from './helpers/on-test-process-exit.js';
import { rawRequest } from './helpers/plain-request.js';

// Issue 38: `npm start` serves the build that `npm ci` made (its prepare step) without running tsc
// again, and the signal a process manager sends npm reaches recap itself: SIGTERM to npm's PID
// shuts recap down, nothing is left listening.

const ROOT = join(import.meta.dirname, '..');

/** Every file under dist/ by its modification time: a build (tsc) rewrites them all. */
function distTimes(dir = join(ROOT, 'dist')): Map<string, number> {
  const out = new Map<string, number>();
  for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const stat = statSync(join(dir, name));
    if (stat.isFile()) out.set(name, stat.mtimeMs);
  }
  return out;
}

let npm: ChildProcess | undefined;
const cancel = onTestProcessExit(() => {
  if (npm?.pid) process.kill(-npm.pid, 'SIGKILL');
});

// What `npm ci` leaves: dist/ built from the sources as they are (a checkout edited since builds here once).
beforeAll(() => {
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'ensure-built.mjs')], { cwd: ROOT, stdio: 'ignore' });
}, 180_000);

afterAll(() => {
  if (npm?.pid && npm.exitCode === null && npm.signalCode === null) process.kill(-npm.pid, 'SIGKILL');
  cancel();
});

describe('npm start', () => {
  it('listens on the built server without building again, and stops with npm on SIGTERM', async () => {
    const before = distTimes();
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', RECAP_CONFIG: '' };
    delete env.REDIS_URL;
    npm = spawn('npm', ['start'], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    npm.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => npm!.once('exit', (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no "recap listening" within 20 s; stderr: ${stderr}`)), 20_000);
      createInterface({ input: npm!.stdout! }).on('line', (line) => {
        const url = line.includes('"recap listening"') ? (JSON.parse(line) as { url: string }).url : undefined;
        if (url) clearTimeout(timer), resolve(url);
      });
    });
    expect((await rawRequest(url, { method: 'GET', target: '/healthz' })).status).toBe(200);
    // No build ran: dist/ is the very files it was, and nothing said it was building.
    expect(distTimes()).toEqual(before);
    expect(stderr).not.toContain('building');

    // The process manager's SIGTERM goes to npm's own PID only.
    process.kill(npm.pid!, 'SIGTERM');
    await exited;
    await expect(rawRequest(url, { method: 'GET', target: '/healthz' })).rejects.toThrow(/ECONNREFUSED/);
  });
});
