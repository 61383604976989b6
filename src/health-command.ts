import { parseCommandArgs, portNumber } from './cli-args.js';
import { loadConfigFile } from './config.js';
import { listeningPort, localAddress } from './serve-options.js';

// `recap health`: the container health check. It finds the port as `recap serve` does, so the
// Dockerfile's HEALTHCHECK and compose follow server.port, PORT or --port instead of assuming 8787.

const TIMEOUT_MS = 2_000;

export async function healthCommand(args: string[]): Promise<void> {
  const { values } = parseCommandArgs('health', args, { config: { type: 'string' }, port: { type: 'string' } });
  // With --port alone no config is needed (nor read): the probe then goes to 127.0.0.1.
  const config = values.port === undefined || values.config !== undefined ? loadConfigFile(values.config) : undefined;
  const port = config ? listeningPort(values.port, config) : portNumber('--port', values.port!);
  const url = `http://${localAddress(config?.server.host ?? '0.0.0.0')}:${port}/healthz`;
  const res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) }).catch((err: unknown) => err as Error);
  if (res instanceof Error) {
    process.stderr.write(`recap health: ${url}: ${res.name === 'TimeoutError' ? `no answer within ${TIMEOUT_MS} ms` : ((res.cause as Error | undefined)?.message ?? res.message)}\n`);
    process.exitCode = 1;
    return;
  }
  await res.body?.cancel();
  if (!res.ok) process.stderr.write(`recap health: ${url} answered ${res.status}\n`);
  process.exitCode = res.ok ? 0 : 1;
}
