import type { Config, ModelConfig } from '../config/config.js';
import type { EventRecorder } from '../events/recorder.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { PipelineDeps } from '../pipeline/pipeline-deps.js';
import type { Records } from '../pipeline/records.js';
import type { TokenService } from '../pipeline/token-service.js';
import type { SeenItems } from '../body/seen-items.js';
import type { UpstreamRegistry } from '../upstream/client.js';

export interface ModelRoute {
  model: ModelConfig | undefined;
  upstream: string;
}

/** Everything the HTTP layer needs, built once at boot (main.ts) or by a test. */
export interface AppDeps {
  config: Config;
  logger: Logger;
  upstreams: UpstreamRegistry;
  defaultUpstream: string;
  routeModel(model: string): ModelRoute;
  /** What the request path plans with (pipeline/prepare.ts), the same for every wire format. */
  pipeline: PipelineDeps;
  metrics: Metrics;
  records: Records;
  events: EventRecorder;
  /** The conversation items parsed lately, so that a request parses only what is new in it. */
  seen: SeenItems;
  /** The request path's token counters: forward-first reads what they counted before. */
  tokens: Pick<TokenService, 'counterFor'>;
  /** Key of the tenant and conversation hashes (the inspection endpoints need it too). */
  secret: string;
  readiness(): Promise<{ ready: boolean; store: string }>;
  /** What GET /metrics answers, when not this process's own registry (a cluster worker's). */
  metricsText?: () => Promise<string>;
}
