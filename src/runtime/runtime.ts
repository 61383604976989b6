import { randomBytes } from 'node:crypto';
import { CredentialProofs } from '../auth/credential-proofs.js';
import { openRelayWarning } from '../auth/open-relay.js';
import { TenantBudget } from '../background/tenant-budget.js';
import type { Config } from '../config/config.js';
import { clientTenant } from '../conversation/identify.js';
import { createEventRecorder, type EventRecorder } from '../events/recorder.js';
import type { Logger } from '../observability/logger.js';
import { createMetrics, type Metrics, watchSeenItems } from '../observability/metrics.js';
import { type BackgroundCompactor, createBackgroundCompactor } from '../pipeline/background.js';
import type { PathDeps } from '../pipeline/route-plan.js';
import { createRecords, type Records } from '../pipeline/records.js';
import { createTokenService, type TokenService } from '../pipeline/token-service.js';
import { createSeenItems, type SeenItems } from '../body/seen-items.js';
import { createStore } from '../store/create-store.js';
import { StoreUnavailableError } from '../store/store.js';
import { createSummarizer } from '../summarizer/client.js';
import { createUpstreamRegistry, type UpstreamRegistry } from '../upstream/client.js';

/** Everything that lives for the whole process, built in dependency order and closed in reverse. */
export interface Runtime {
  logger: Logger;
  metrics: Metrics;
  upstreams: UpstreamRegistry;
  records: Records;
  events: EventRecorder;
  seen: SeenItems;
  tokens: TokenService;
  /** What the request path plans with, for every wire format. */
  pipeline: PathDeps;
  background: BackgroundCompactor;
  secret: string;
  storeKind: string;
  readiness(): Promise<{ ready: boolean; store: string }>;
  close(): Promise<void>;
}

function serverSecret(config: Config, logger: Logger): string {
  if (config.server.secret) return config.server.secret;
  logger.warn(
    'no server.secret / RECAP_SECRET set: generated a random one for this process. Records will not be found after a restart or by other replicas; set RECAP_SECRET in production.',
  );
  return randomBytes(32).toString('base64url');
}

/** Configured clients' own summarizer allowances, by tenant hash. */
function clientAllowances(config: Config, secret: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const c of config.clients ?? []) if (c.tenant_tokens_per_window !== undefined) out.set(clientTenant(c.name, secret), c.tenant_tokens_per_window);
  return out;
}

export async function createRuntime(config: Config, logger: Logger): Promise<Runtime> {
  const metrics = createMetrics();
  const upstreams = createUpstreamRegistry(config);
  let lastStoreError = 0;
  const store = await createStore(
    config.store,
    {
      onError: (err) => {
        // Redis repeats its connection error on every retry; one line per 10 s is enough.
        if (Date.now() - lastStoreError > 10_000) logger.warn({ err: err.message }, 'store unreachable; serving without records');
        lastStoreError = Date.now();
      },
      onUnreadable: (kind) => metrics.storeUnreadable.inc({ kind }),
    },
    {
      perConversation: config.events.max_per_conversation,
      conversations: config.events.max_conversations,
      perTenant: config.events.max_per_tenant,
      memoryMaxBytes: config.events.memory_max_bytes,
    },
  );
  const { max_checkpoints: perBranch, max_branches: branches } = config.store;
  const records = createRecords(store, metrics, logger, { perBranch, total: perBranch * branches });
  const tokens = createTokenService(config, metrics);
  const seen = createSeenItems(config.tokens.memo_max_bytes);
  watchSeenItems(metrics, seen);
  const summarizer = createSummarizer(upstreams);
  const secret = serverSecret(config, logger);
  const relay = openRelayWarning(config);
  if (relay) logger.warn(relay);
  // Per-tenant store calls fail open to the process's own view; counted like the records' (records.ts).
  const onStoreError = (op: string, err: unknown) => {
    metrics.storeErrors.inc({ op });
    if (!(err instanceof StoreUnavailableError)) logger.error({ err, op }, 'store operation failed');
  };
  const tenantBudget = new TenantBudget({
    tokensPerWindow: config.background.tenant_tokens_per_window,
    windowMs: config.background.tenant_window_seconds * 1000,
    perTenant: clientAllowances(config, secret),
    store,
    onStoreError,
  });
  const proofs = new CredentialProofs({ config, secret, store, onStoreError });
  const events = createEventRecorder({ config: config.events, events: store.events, metrics, logger });
  const shared = { config, records, tokens, summarizer, tenantBudget, proofs, metrics, events, logger, secret };
  const background = createBackgroundCompactor(shared);
  const pipeline: PathDeps = { ...shared, background };
  return {
    logger,
    metrics,
    upstreams,
    records,
    events,
    seen,
    tokens,
    pipeline,
    background,
    secret,
    storeKind: store.kind,
    async readiness() {
      try {
        await store.ping();
        return { ready: true, store: store.state() };
      } catch {
        return { ready: false, store: store.state() };
      }
    },
    async close() {
      await background.close();
      await events.close();
      await upstreams.close();
      await store.close();
    },
  };
}
