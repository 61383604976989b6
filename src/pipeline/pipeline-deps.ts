import type { CredentialProofs } from '../auth/credential-proofs.js';
import type { TenantBudget } from '../background/tenant-budget.js';
import type { Config } from '../config/config.js';
import type { EventRecorder } from '../events/recorder.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { Summarizer } from '../summarizer/client.js';
import type { Records } from './records.js';
import type { TokenService } from './token-service.js';

/** What the compaction step is built from (runtime.ts wires the real ones, tests their own). */
export interface PipelineDeps {
  config: Config;
  records: Records;
  tokens: TokenService;
  summarizer: Summarizer;
  tenantBudget: TenantBudget;
  proofs: CredentialProofs;
  metrics: Metrics;
  events: EventRecorder;
  logger: Logger;
  secret: string;
}
