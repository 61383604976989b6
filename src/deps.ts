import type { CompactionStep } from './chat/compaction-step.js';
import type { Config, ModelConfig } from './config.js';
import type { Logger } from './logger.js';
import type { UpstreamRegistry } from './upstream/client.js';

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
  compaction: CompactionStep;
  readiness(): Promise<{ ready: boolean; store: string }>;
}
