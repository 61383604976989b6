import cluster, { type Worker } from 'node:cluster';
import { randomBytes } from 'node:crypto';
import { AggregatorRegistry } from 'prom-client';
import type { Config } from '../config/config.js';
import type { Logger } from '../observability/logger.js';
import { isWorkerMessage, type MetricsReply } from './messages.js';
import { restartDelay } from './restart-delay.js';

// `recap serve --workers N`: the primary serves nothing itself. It forks N workers (each a whole
// recap, all accepting on one port), hands them one tenant secret, answers their requests for the
// cluster's metrics, replaces a worker that dies (with a backoff while they die before they listen),
// and on SIGTERM stops them all and exits 0 once every worker has drained and gone.

export interface PrimaryOptions {
  workers: number;
  config: Config;
  logger: Logger;
}

// After the workers' own drain (shutdown_grace_ms), how long they get to close the rest.
const SHUTDOWN_MARGIN_MS = 5_000;

/** One secret for every worker: without it each would hash tenants with its own random key. */
function workerSecret(config: Config, logger: Logger): Record<string, string> {
  if (config.server.secret) return {};
  logger.warn(
    'no server.secret / RECAP_SECRET set: generated a random one for these workers. Records will not be found after a restart or by other replicas; set RECAP_SECRET in production.',
  );
  return { RECAP_SECRET: randomBytes(32).toString('base64url') };
}

export function runPrimary({ workers, config, logger }: PrimaryOptions): void {
  const env = workerSecret(config, logger);
  const aggregator = new AggregatorRegistry();
  const alive = new Set<Worker>();
  const listening = new Set<Worker>();
  const forks = new Set<NodeJS.Timeout>();
  let announced = false;
  let stopping = false;
  let exitCode = 0;
  // Workers in a row that exited before they listened: the backoff of the next fork.
  let failedStarts = 0;
  let giveUp: NodeJS.Timeout | undefined;

  const fork = () => alive.add(cluster.fork(env));
  const forkAfter = (ms: number) => {
    const timer = setTimeout(() => {
      forks.delete(timer);
      if (!stopping) fork();
    }, ms);
    forks.add(timer);
  };
  const exit = () => logger.flush(() => process.exit(exitCode));
  const signalAll = (signal: NodeJS.Signals) => {
    for (const w of alive) w.process.kill(signal);
  };
  const shutdown = (reason: string) => {
    if (stopping) return;
    stopping = true;
    for (const timer of forks) clearTimeout(timer);
    clearTimeout(giveUp);
    logger.info({ signal: reason, workers: alive.size }, 'shutting down');
    if (alive.size === 0) return exit();
    signalAll('SIGTERM');
    setTimeout(() => {
      logger.error({ workers: alive.size }, 'workers still running past the shutdown grace: killing them');
      exitCode = 1;
      signalAll('SIGKILL');
    }, config.server.shutdown_grace_ms + SHUTDOWN_MARGIN_MS).unref();
  };
  // The server stops only when no worker has served for server.worker_give_up_ms (none could start).
  const watchForNoneServing = () => {
    if (stopping || listening.size > 0 || giveUp) return;
    const ms = config.server.worker_give_up_ms;
    giveUp = setTimeout(() => {
      logger.error({ ms, failedStarts }, 'no worker could start: stopping');
      exitCode = 1;
      shutdown('workers_failed');
    }, ms);
  };

  const reply = (worker: Worker, message: MetricsReply) => {
    if (worker.isConnected()) worker.send(message);
  };
  cluster.on('message', (worker, message: unknown) => {
    if (!isWorkerMessage(message)) return;
    if (message.type === 'recap:metrics-request') {
      aggregator.clusterMetrics().then(
        (text) => reply(worker, { type: 'recap:metrics-reply', id: message.id, text }),
        (err: Error) => reply(worker, { type: 'recap:metrics-reply', id: message.id, error: err.message }),
      );
      return;
    }
    listening.add(worker);
    failedStarts = 0;
    clearTimeout(giveUp);
    giveUp = undefined;
    if (announced) logger.info({ worker: worker.id, workers: listening.size }, 'worker listening');
    else if (listening.size >= workers) {
      announced = true;
      logger.info({ url: message.url, workers, pid: process.pid }, 'recap listening');
    }
  });

  cluster.on('exit', (worker, code, signal) => {
    alive.delete(worker);
    const wasListening = listening.delete(worker);
    if (stopping) {
      // A worker that did not drain and exit cleanly makes the whole shutdown unclean.
      if (code !== 0) exitCode = 1;
      if (alive.size === 0) exit();
      return;
    }
    // The others keep serving meanwhile; a worker that keeps dying before it listens is started
    // again less and less often (restart-delay.ts).
    if (!wasListening) failedStarts++;
    const restartInMs = restartDelay(failedStarts);
    const msg = wasListening ? 'worker died; starting another' : 'worker exited before it listened; starting another';
    logger.warn({ worker: worker.id, code, signal, restartInMs, serving: listening.size }, msg);
    forkAfter(restartInMs);
    watchForNoneServing();
  });

  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
  for (let i = 0; i < workers; i++) fork();
  watchForNoneServing();
}
