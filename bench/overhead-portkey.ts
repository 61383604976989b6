// Portkey's open-source gateway as a comparison target. It is installed for the benchmark only,
// into a folder under the OS temp dir, never into the project's package.json.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, spawnNode, waitForStatus, type Child } from './overhead-processes.js';

const PREFIX = join(tmpdir(), 'recap-bench-portkey');
const GATEWAY_VERSION = '1.15.2';
// @hono/node-server ≥ 1.14 hands Portkey the upstream's immutable fetch Headers, and Portkey's
// updateHeaders() then throws "TypeError: immutable" on every streamed reply (Portkey-AI/gateway
// issues #1389, #1550). 1.13.8 is the newest release it works with.
const NODE_SERVER_VERSION = '1.13.8';
const SERVER_JS = join(PREFIX, 'node_modules', '@portkey-ai', 'gateway', 'build', 'start-server.js');
const INSTALL_TIMEOUT_MS = 180_000;

export interface PortkeyTarget {
  child: Child;
  url: string;
  version: string;
  /** Portkey's routing headers, names as in its source (`x-${POWERED_BY}-provider`, `-custom-host`). */
  headers: Record<string, string>;
}

function installedVersion(pkg: string): string | undefined {
  const file = join(PREFIX, 'node_modules', ...pkg.split('/'), 'package.json');
  if (!existsSync(file)) return undefined;
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

async function ensureInstalled(): Promise<void> {
  if (installedVersion('@portkey-ai/gateway') === GATEWAY_VERSION && installedVersion('@hono/node-server') === NODE_SERVER_VERSION) return;
  await mkdir(PREFIX, { recursive: true });
  const manifest = {
    name: 'recap-bench-portkey',
    private: true,
    dependencies: { '@portkey-ai/gateway': GATEWAY_VERSION },
    overrides: { '@hono/node-server': NODE_SERVER_VERSION },
  };
  await writeFile(join(PREFIX, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  // Its postinstall (patch-package) only serves Portkey's own development checkout.
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  await promisify(execFile)(npm, ['install', '--prefix', PREFIX, '--ignore-scripts', '--no-audit', '--no-fund'], {
    timeout: INSTALL_TIMEOUT_MS,
  });
}

/** Installs (once) and starts Portkey routing to `upstreamUrl`; throws with the reason if it cannot. */
export async function startPortkey(upstreamUrl: string): Promise<PortkeyTarget> {
  await ensureInstalled();
  const port = await freePort();
  const child = spawnNode('portkey', [SERVER_JS, `--port=${port}`, '--headless'], { env: { NODE_ENV: 'production' } });
  const url = `http://127.0.0.1:${port}`;
  try {
    // Its root route answers once the server is listening.
    await waitForStatus(`${url}/`, 200, 20_000, child);
  } catch (err) {
    await child.stop();
    throw err;
  }
  return {
    child,
    url: `${url}/v1`,
    version: installedVersion('@portkey-ai/gateway') ?? 'unknown',
    headers: { 'x-portkey-provider': 'openai', 'x-portkey-custom-host': upstreamUrl },
  };
}
