import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { onTestProcessExit } from './on-test-process-exit.js';

// Headless Chromium from Debian's package (.ci/run installs it), driven by playwright-core. One
// browser per test file, with a fresh profile it removes again. Chromium's background services
// (updates, sync, safe browsing, QUIC probes) are off: on a closed network their connections are
// refused, and a test must not wait on them.

export const CHROMIUM = '/usr/bin/chromium';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface TestBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: the browser tests need Debian's chromium (apt-get install chromium)`);
  const profile = mkdtempSync(join(tmpdir(), 'recap-chromium-'));
  const removeProfile = () => rmSync(profile, { recursive: true, force: true });
  const cancel = onTestProcessExit(removeProfile);
  try {
    // launchPersistentContext is playwright's way to give Chromium its --user-data-dir.
    const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1280, height: 900 } });
    return {
      context,
      async close() {
        await context.close().catch(() => undefined);
        removeProfile();
        cancel();
      },
    };
  } catch (err) {
    removeProfile();
    cancel();
    throw err;
  }
}
