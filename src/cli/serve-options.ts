import { portNumber, workerCount } from './args.js';
import { type Config, workerTotal } from '../config/config.js';

type Env = Record<string, string | undefined>;

/** `--port`, else PORT, else server.port: how `recap serve` and `recap health` find the port. */
export function listeningPort(flag: string | undefined, config: Config, env: Env = process.env): number {
  if (flag !== undefined) return portNumber('--port', flag);
  if (env.PORT) return portNumber('PORT', env.PORT);
  return config.server.port;
}

/** `--workers`, else server.workers. */
export function workersWanted(flag: string | undefined, config: Config): number {
  return flag === undefined ? workerTotal(config.server.workers) : workerCount('--workers', flag);
}

/** The address a local probe reaches a server listening on `host` at. */
export function localAddress(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}
