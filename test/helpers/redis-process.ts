import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { promisify } from 'node:util';
import { onTestProcessExit } from './on-test-process-exit.js';

// Throwaway redis-server processes for tests: free ports, start, wait until they answer, stop.

const run = promisify(execFile);

/** Ports the OS just handed out and released, all distinct; fine for servers started right after. */
export async function freePorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => createServer());
  const ports = await Promise.all(
    servers.map(
      (server) =>
        new Promise<number>((resolve, reject) => {
          server.on('error', reject);
          server.listen(0, '127.0.0.1', () => {
            const address = server.address();
            resolve(typeof address === 'object' && address ? address.port : 0);
          });
        }),
    ),
  );
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

export async function redisCli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { timeout: 30_000 });
  return stdout;
}

/** Polls until `check` resolves true, or fails after `timeoutMs`. */
export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Starts redis-server in the foreground (so the test owns the process) with nothing persisted.
 * A server that does not answer in time is killed before the error is thrown.
 */
export async function spawnRedisServer(port: number, dir: string, extraArgs: string[] = []): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--daemonize', 'no', ...extraArgs], {
    stdio: 'ignore',
  });
  // A test run that dies without calling stop() must not leave servers behind.
  const cancel = onTestProcessExit(() => child.kill('SIGKILL'));
  child.once('exit', cancel);
  const failed = new Promise<never>((_, reject) => {
    child.once('exit', (code, signal) => reject(new Error(`redis-server :${port} exited (${code ?? signal})`)));
    child.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'ENOENT' ? new Error('redis-server is not on the PATH (Debian/Ubuntu: apt-get install redis-server)') : err),
    );
  });
  failed.catch(() => undefined);
  try {
    await Promise.race([waitFor(`redis-server :${port}`, async () => (await redisCli(port, 'ping')).trim() === 'PONG'), failed]);
  } catch (err) {
    await killProcess(child, 'SIGKILL');
    throw err;
  }
  return child;
}

/** Sends `signal` and waits for the process to be gone. */
export function killProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  // Never started (spawn failed): nothing to wait for.
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}
