import { get } from 'node:http';
import { parseCommandArgs, portNumber } from './args.js';
import { loadConfigFile } from '../config/config.js';
import { listeningPort, localAddress } from './serve-options.js';

// `recap health`: the container health check. It finds the port as `recap serve` does, so the
// Dockerfile's HEALTHCHECK and compose follow server.port, PORT or --port instead of assuming 8787.

const TIMEOUT_MS = 2_000;

/** GET `url`: its status, or why there is none. node:http rather than fetch, which refuses some ports. */
function probe(url: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = get(url, { timeout: TIMEOUT_MS }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.once('timeout', () => req.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)));
    req.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

export async function healthCommand(args: string[]): Promise<void> {
  const { values } = parseCommandArgs('health', args, { config: { type: 'string' }, port: { type: 'string' } });
  // With --port alone no config is needed (nor read): the probe then goes to 127.0.0.1.
  const config = values.port === undefined || values.config !== undefined ? loadConfigFile(values.config) : undefined;
  const port = config ? listeningPort(values.port, config) : portNumber('--port', values.port!);
  const url = `http://${localAddress(config?.server.host ?? '0.0.0.0')}:${port}/healthz`;
  const status = await probe(url);
  if (status !== 200) process.stderr.write(`recap health: ${url}: ${typeof status === 'number' ? `answered ${status}` : status}\n`);
  process.exitCode = status === 200 ? 0 : 1;
}
