import cluster from 'node:cluster';
import { parseCommandArgs } from './args.js';
import { type Config, loadConfigFile, workersProblem } from '../config/config.js';
import { createLogger, type Logger } from '../observability/logger.js';
import { listeningPort, workersWanted } from './serve-options.js';
import { startTracing } from '../tracing/setup.js';
import { runPrimary } from '../workers/primary.js';
import { joinCluster, type WorkerLink } from '../workers/worker.js';

// `recap serve`: one process, or with --workers N a primary and N workers on one port. A worker
// runs this same command (node:cluster forks the CLI with its arguments) and takes the worker
// branch; each worker is a whole recap, as a single process would be.

/** Serves until SIGTERM/SIGINT (or, for a worker, until its primary is gone), then drains and exits. */
async function serveProcess(config: Config, port: number, logger: Logger, link?: WorkerLink): Promise<void> {
  const tracing = await startTracing(process.env, logger);
  const { startRecap } = await import('../main.js');
  const recap = await startRecap(config, { port, logger, metricsText: link?.clusterMetrics });
  if (link) {
    link.report(recap.runtime.metrics.registry);
    link.announce(recap.url);
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // Log lines are written asynchronously: let them out before the process goes.
    const exit = (code: number) => logger.flush(() => process.exit(code));
    recap
      .close()
      .then(() => tracing.shutdown())
      .then(
        () => exit(0),
        () => exit(1),
      );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  link?.onPrimaryGone(() => stop('primary_gone'));
}

export async function serveCommand(args: string[]): Promise<void> {
  const { values } = parseCommandArgs('serve', args, { config: { type: 'string' }, port: { type: 'string' }, workers: { type: 'string' } });
  const config = loadConfigFile(values.config);
  const port = listeningPort(values.port, config);
  const logger = createLogger(config.server.log_level);
  if (cluster.isWorker) {
    return serveProcess(config, port, logger.child({ worker: cluster.worker!.id }), joinCluster());
  }
  const workers = workersWanted(values.workers, config);
  if (workers === 1) return serveProcess(config, port, logger);
  const problem = workersProblem(workers, config);
  if (problem) throw new Error(`--workers ${workers}: ${problem}`);
  runPrimary({ workers, config, logger });
}
