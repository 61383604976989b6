import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// Issue 38: scripts/provision.sh (run by `npm test` before any test, and by .ci/run) installs
// redis-server and Chromium as root with apt-get; elsewhere it says in one line what to install.
// Here it runs as a user that is not root (an `id` that says 1000) on a PATH without Redis.

const SCRIPT = join(import.meta.dirname, '..', 'scripts', 'provision.sh');
const bin = mkdtempSync(join(tmpdir(), 'recap-provision-'));
afterAll(() => rmSync(bin, { recursive: true, force: true }));

describe('scripts/provision.sh', () => {
  it('names what to install in one line and fails, where it may not install it', () => {
    writeFileSync(join(bin, 'id'), '#!/bin/sh\necho 1000\n');
    chmodSync(join(bin, 'id'), 0o755);
    const run = spawnSync('/bin/bash', [SCRIPT], { env: { PATH: bin }, encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^recap's tests need redis-server redis-tools( chromium)?: install them \(Debian\/Ubuntu: sudo apt-get install redis-server redis-tools/);
  });

  it('does nothing on a machine that has everything', () => {
    const run = spawnSync('/bin/bash', [SCRIPT], { encoding: 'utf8' });
    expect({ status: run.status, out: run.stdout + run.stderr }).toEqual({ status: 0, out: '' });
  });
});
