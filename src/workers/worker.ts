import { AggregatorRegistry, type Registry } from 'prom-client';
import { isMetricsReply, type MetricsRequest, type WorkerMessage } from './messages.js';

// A worker's side of the cluster: it tells the primary it listens, answers a scrape of /metrics
// with the whole cluster's metrics (fetched from the primary, which collects every worker's),
// and learns when the primary is gone.

// prom-client's primary gives up on a worker after 5 s; this bounds the round trip around it.
const METRICS_TIMEOUT_MS = 10_000;

export interface WorkerLink {
  /** Makes `registry` the one this worker reports when the primary collects the metrics. */
  report(registry: Registry): void;
  announce(url: string): void;
  /** The Prometheus text of every worker's metrics added up (counters summed, and so on). */
  clusterMetrics(): Promise<string>;
  /** Runs `fn` once when the IPC channel to the primary closes (the primary exited). */
  onPrimaryGone(fn: () => void): void;
}

function send(message: WorkerMessage): void {
  if (process.connected) process.send!(message);
}

export function joinCluster(): WorkerLink {
  let nextId = 0;
  const pending = new Map<number, { resolve(text: string): void; reject(err: Error): void }>();
  process.on('message', (message: unknown) => {
    if (!isMetricsReply(message)) return;
    const waiter = pending.get(message.id);
    if (!waiter) return;
    pending.delete(message.id);
    if (message.text !== undefined) waiter.resolve(message.text);
    else waiter.reject(new Error(`cluster metrics unavailable: ${message.error ?? 'no reply'}`));
  });

  return {
    report: (registry) => {
      // The primary collects from each worker through prom-client's own IPC handler, which a
      // worker installs by constructing an AggregatorRegistry.
      AggregatorRegistry.setRegistries([registry]);
      new AggregatorRegistry();
    },
    announce: (url) => send({ type: 'recap:listening', url }),
    clusterMetrics: () =>
      new Promise<string>((resolve, reject) => {
        if (!process.connected) return reject(new Error('cluster metrics unavailable: the primary is gone'));
        const request: MetricsRequest = { type: 'recap:metrics-request', id: nextId++ };
        const timer = setTimeout(() => {
          pending.delete(request.id);
          reject(new Error('cluster metrics unavailable: the primary did not answer in time'));
        }, METRICS_TIMEOUT_MS);
        pending.set(request.id, {
          resolve: (text) => {
            clearTimeout(timer);
            resolve(text);
          },
          reject: (err) => {
            clearTimeout(timer);
            reject(err);
          },
        });
        send(request);
      }),
    onPrimaryGone: (fn) => process.once('disconnect', fn),
  };
}
