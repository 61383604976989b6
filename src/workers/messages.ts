// What the primary and its workers tell each other over the cluster's IPC channel. prom-client's
// own messages (its metric collection) share the channel; these carry a `recap:` type.

/** Worker → primary: the worker's server is listening. */
export interface ListeningMessage {
  type: 'recap:listening';
  url: string;
}

/** Worker → primary: a scrape of /metrics landed on this worker; send the cluster's metrics. */
export interface MetricsRequest {
  type: 'recap:metrics-request';
  id: number;
}

/** Primary → worker: the aggregate of every worker's metrics, or why there is none. */
export interface MetricsReply {
  type: 'recap:metrics-reply';
  id: number;
  text?: string;
  error?: string;
}

export type WorkerMessage = ListeningMessage | MetricsRequest;

function typed(message: unknown): string | undefined {
  return message !== null && typeof message === 'object' && typeof (message as { type?: unknown }).type === 'string' ? (message as { type: string }).type : undefined;
}

export function isWorkerMessage(message: unknown): message is WorkerMessage {
  const type = typed(message);
  return type === 'recap:listening' || type === 'recap:metrics-request';
}

export function isMetricsReply(message: unknown): message is MetricsReply {
  return typed(message) === 'recap:metrics-reply';
}
