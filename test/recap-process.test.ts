import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../src/dev/fake-upstream.js';
import { processesMentioning } from './helpers/procfs.js';
import { freePorts } from './helpers/redis-process.js';
import { RecapStartError, startRecapProcess, startRecapProcesses, writeConfigFile } from './helpers/recap-process.js';

// The helper that runs recap as a separate process must end what it started on every failure
// path: a failed start-up leaves no process (nor worker) running and no temp folder behind.

async function startFailure(start: Promise<unknown>): Promise<RecapStartError> {
  const err = await start.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(Error);
  return err as RecapStartError;
}

let fake: FakeUpstream;
let deadPort: number;
beforeAll(async () => {
  fake = await startFakeUpstream();
  [deadPort = 1] = await freePorts(1);
});
afterAll(async () => {
  await fake?.close();
});

const config = (extra: object = {}) => ({ upstreams: { fake: { base_url: fake.url } }, ...extra });

describe('startRecapProcess on a failed start-up', () => {
  it('kills a recap that never becomes ready (its store never answers) and keeps no process', async () => {
    const file = await writeConfigFile(config({ store: { url: `redis://127.0.0.1:${deadPort}` } }));
    try {
      const err = await startFailure(startRecapProcess(file.file, {}, { readyTimeoutMs: 1_000 }));
      expect(processesMentioning(file.file)).toEqual([]);
      expect(err.message).toMatch(/did not become ready/);
      expect(err).toBeInstanceOf(RecapStartError);
    } finally {
      await file.cleanup();
    }
    expect(existsSync(file.file)).toBe(false);
  });

  it('kills the primary and every worker of a --workers start-up that fails', async () => {
    const err = await startFailure(startRecapProcess(config({ store: { url: `redis://127.0.0.1:${deadPort}` } }), {}, { args: ['--workers', '2'], readyTimeoutMs: 1_500 }));
    expect(err.message).toMatch(/did not become ready/);
    expect(err.tempDir).toBeDefined();
    expect(processesMentioning(err.tempDir!)).toEqual([]);
    expect(existsSync(err.tempDir!)).toBe(false);
  });

  it('reports a recap that exits (a bad config) with its stderr, and removes its temp folder', async () => {
    const err = await startFailure(startRecapProcess(config({ server: { port: 'eighty' } })));
    expect(err.message).toMatch(/recap exited with 1: .*server\.port: /s);
    expect(existsSync(err.tempDir!)).toBe(false);
  });

  it('stops the replicas that started when another of them fails, and removes their files', async () => {
    const good = await writeConfigFile(config());
    try {
      const err = await startFailure(startRecapProcesses([good.file, config({ server: { port: 'eighty' } })]));
      expect(err.message).toMatch(/recap exited with 1: .*server\.port: /s);
      expect(processesMentioning(good.file)).toEqual([]);
    } finally {
      await good.cleanup();
    }
  });

  it('kills a recap that does not start in time', async () => {
    const err = await startFailure(startRecapProcess(config(), {}, { startTimeoutMs: 1 }));
    expect(err.message).toMatch(/did not start within 1 ms/);
    expect(err.pid).toBeDefined();
    expect(processesMentioning(err.tempDir!)).toEqual([]);
    expect(existsSync(err.tempDir!)).toBe(false);
  });
});

describe('a test process that is ended', () => {
  it('kills the recap processes it started when it gets SIGTERM (how vitest ends its workers)', async () => {
    const file = await writeConfigFile(config());
    const runner = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'helpers', 'recap-then-wait.ts'), file.file], { stdio: ['ignore', 'pipe', 'inherit'] });
    let recapPid = 0;
    try {
      const lines = createInterface({ input: runner.stdout! });
      const started = await new Promise<string>((resolve, reject) => {
        lines.once('line', resolve);
        runner.once('exit', (code) => reject(new Error(`the runner exited with ${code} before starting recap`)));
      });
      recapPid = Number(/^started (\d+)$/.exec(started)?.[1]);
      expect(processesMentioning(file.file)).toContain(recapPid);
      const exited = new Promise((resolve) => runner.once('exit', resolve));
      runner.kill('SIGTERM');
      await exited;
      expect(processesMentioning(file.file)).toEqual([]);
    } finally {
      runner.kill('SIGKILL');
      // On a failure the recap may have outlived its runner: its own process group.
      if (recapPid > 0 && processesMentioning(file.file).includes(recapPid)) process.kill(-recapPid, 'SIGKILL');
      await file.cleanup();
    }
  });
});
