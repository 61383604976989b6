import { z } from 'zod';
import { ENCODING_NAMES } from './encoding-names.js';

// The config file's shape. Defaults live here so that every consumer sees a complete config.

const positiveInt = z.number().int().positive();
const ratio = z.number().gt(0).lte(1);

export const timeoutsSchema = z
  .object({
    connect_ms: positiveInt.default(10_000),
    // Time to the response headers: a long non-streamed generation only answers at the end.
    headers_ms: positiveInt.default(600_000),
    // Longest silence between two body chunks of a response.
    body_idle_ms: positiveInt.default(300_000),
  })
  .strict();

export const upstreamSchema = z
  .object({
    base_url: z.url({ protocol: /^https?$/ }),
    // The API the upstream speaks: OpenAI's (chat completions, Responses) or Anthropic's Messages.
    // A request is forwarded only to an upstream of its own API; a summarizer on an anthropic
    // upstream is called on its /messages.
    api: z.enum(['openai', 'anthropic']).default('openai'),
    api_key: z.string().min(1).optional(),
    timeouts: timeoutsSchema.default(timeoutsSchema.parse({})),
    connections: positiveInt.default(128),
  })
  .strict();

const price = z.number().min(0);

// List prices per million tokens, in whatever currency the operator bills in (recap only multiplies).
export const pricingSchema = z
  .object({
    input: price,
    // Absent: the provider gives no discount on cached input (priced as input).
    cached_input: price.optional(),
    // Absent: writing to the cache costs what input costs (OpenAI); Anthropic charges more.
    cache_write: price.optional(),
    output: price,
  })
  .strict();

export const summarizerSchema = z
  .object({
    // Not needed with shared_prefix: the conversation's own model summarizes.
    model: z.string().min(1).optional(),
    // Summarize with the conversation's own model and upstream, on the prefix recap last forwarded
    // (byte for byte, one instruction appended), so the provider reads it from its cache (docs/cost.md).
    shared_prefix: z.boolean().default(false),
    upstream: z.string().min(1).optional(),
    timeout_ms: positiveInt.default(60_000),
    // Largest transcript (in tokens) sent in one summarizer call; bigger spans go in chunks.
    max_input_tokens: positiveInt.default(64_000),
    // Reasoning models (o-series, gpt-5) take max_completion_tokens; many compatible servers only max_tokens.
    token_limit_field: z.enum(['max_tokens', 'max_completion_tokens']).default('max_tokens'),
    // The summarizer's prices, when its model has no models[] entry with its own (compaction/cost.ts).
    pricing: pricingSchema.optional(),
  })
  .strict()
  .refine((s) => s.model !== undefined || s.shared_prefix, {
    message: "a summarizer needs a model, unless shared_prefix is true (the conversation's own model summarizes)",
    path: ['model'],
  });

export const clearingSchema = z
  .object({
    // Default: on for the strategies that keep a record of what they evict (summarize, template).
    enabled: z.boolean().optional(),
    // The newest steps whose results are never cleared (the newest one never is, whatever this says).
    keep_last_steps: positiveInt.default(3),
    // Results smaller than this are not worth a stub.
    min_tokens: positiveInt.default(256),
  })
  .strict();

export const costPlanningSchema = z
  .object({
    // The view a cost-planned cut shrinks to, as a share of the budget: money always prefers a
    // smaller view, so this is the bound that keeps enough recent context verbatim.
    view_ratio: ratio.default(0.3),
    // Cost-planned cuts are at least this share of the budget apart (bounds summarizer calls where caching is dear).
    min_gap_ratio: ratio.default(0.1),
  })
  .strict();

export const compactionSchema = z
  .object({
    // Unset means `off`, also inside a `compaction:` block (config.ts refuses a summarizer without a strategy).
    strategy: z.enum(['summarize', 'template', 'window', 'off']).default('off'),
    // `audit`: plan as usual but forward the client's bytes and call no summarizer (pipeline/audit.ts).
    mode: z.enum(['enforce', 'audit']).default('enforce'),
    // Later system/developer messages stay verbatim after the summary instead of being summarized (rule 2).
    keep_instructions: z.boolean().default(true),
    // The opening task (first user message) stays verbatim in every view while it is at most this
    // share of the budget (rule 1); a bigger one is summarized. 0: only the cut round's own task stays.
    task_max_share: z.number().min(0).max(1).default(0.25),
    clear_tool_results: clearingSchema.default(clearingSchema.parse({})),
    summarizer: summarizerSchema.optional(),
    summary_max_tokens: positiveInt.default(1024),
    trigger_ratio: ratio.default(1.0),
    target_ratio: ratio.default(0.6),
    prepare_ratio: ratio.default(0.8),
    prompt: z.string().min(1).optional(),
    template_max_bytes: positiveInt.default(8192),
    // Identifiers the summary lacks are appended verbatim in a ledger section (compaction/ledger.ts).
    ledger: z.boolean().default(true),
    // With the model's `pricing`: the bounds of planning by cost (compaction/cost.ts).
    cost: costPlanningSchema.default(costPlanningSchema.parse({})),
  })
  .strict()
  .refine((c) => c.target_ratio < c.trigger_ratio, {
    message: 'target_ratio must be smaller than trigger_ratio',
    path: ['target_ratio'],
  })
  .refine((c) => c.strategy !== 'summarize' || c.summarizer !== undefined, {
    message: 'strategy summarize needs summarizer.model',
    path: ['summarizer'],
  })
  .refine((c) => c.mode !== 'audit' || c.strategy !== 'off', {
    message: 'mode audit needs a strategy to audit: set strategy to summarize (with summarizer.model), template or window (unset, compaction is off)',
    path: ['mode'],
  });

export const recallSchema = z
  .object({
    // Where compaction is on: offer the model `recap_recall` once something was cleared or summarized (rule 13).
    enabled: z.boolean().default(true),
    // Continuations recap sends for one reply, each answering the model's recall calls.
    max_hops: z.number().int().min(1).max(10).default(3),
    // The most tokens one recall result may carry (less when the request's budget has less room).
    max_result_tokens: positiveInt.default(2000),
    // Tokens a compacted view that carries recap_recall leaves free below the trigger, so that one
    // useful recall answer fits on the turns that need it most (a request the client sent below
    // the trigger is never compacted for it).
    answer_room_tokens: z.number().int().min(0).default(500),
  })
  .strict();

export const modelSchema = z
  .object({
    match: z.string().min(1),
    upstream: z.string().min(1),
    context_window: positiveInt,
    max_output_tokens: positiveInt,
    encoding: z.enum(ENCODING_NAMES).default('o200k_base'),
    budget: positiveInt.optional(),
    // Scale estimates by the upstream's reported usage; on by default only where the tokenizer is unknown.
    calibrate: z.boolean().optional(),
    compaction: compactionSchema.default(compactionSchema.parse({ strategy: 'off' })),
    recall: recallSchema.default(recallSchema.parse({})),
    // With prices, compaction is planned by cost (docs/design.md rule 14; compaction/cost.ts) and requests report what they cost.
    pricing: pricingSchema.optional(),
  })
  .strict();

export const storeSchema = z
  .object({
    url: z.string().min(1).optional(),
    ttl_seconds: positiveInt.default(7 * 24 * 3600),
    // Per branch of a conversation (the checkpoints a request still starts with)...
    max_checkpoints: positiveInt.default(8),
    // ...and branches of one conversation (same opening, other continuations) kept at that size.
    max_branches: positiveInt.default(4),
    command_timeout_ms: positiveInt.default(300),
    memory_max_conversations: positiveInt.default(10_000),
    key_prefix: z.string().default('recap'),
  })
  .strict();

/**
 * The conversation headers recap reads unless told otherwise (config/recap.yaml ships the same
 * list): its own first (never forwarded), then the session headers agents send of their own
 * (forwarded unchanged): opencode's x-session-id, the Codex CLI's session_id (older) and
 * session-id, Claude Code's x-claude-code-session-id.
 */
export const SESSION_HEADERS = ['x-conversation-id', 'x-session-id', 'session_id', 'session-id', 'x-claude-code-session-id'] as const;

export const serverSchema = z
  .object({
    port: z.number().int().min(0).max(65535).default(8787),
    // Processes serving the port (node:cluster); `auto` = one per core. More than one needs Redis.
    workers: z.union([z.literal('auto'), z.number().int().min(1).max(1024)]).default(1),
    host: z.string().default('0.0.0.0'),
    // One header name or a list, tried in order (clients that send a session header of their own).
    conversation_header: z
      .union([z.string().min(1).toLowerCase(), z.array(z.string().min(1).toLowerCase()).min(1)])
      .default([...SESSION_HEADERS])
      .transform((v) => (Array.isArray(v) ? v : [v])),
    body_limit_bytes: positiveInt.default(32 * 1024 * 1024),
    secret: z.string().min(16).optional(),
    admin_token: z.string().min(16).optional(),
    log_level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    log_bodies: z.boolean().default(false),
    shutdown_grace_ms: positiveInt.default(10_000),
    // With --workers: while no worker is serving, how long the primary keeps starting new ones
    // (with a backoff) before it stops with exit code 1.
    worker_give_up_ms: positiveInt.default(30_000),
    // A client that takes in nothing of a response for this long is cut off (its upstream request too).
    client_stall_ms: positiveInt.default(300_000),
    // How long a request waits for another request's (or a background job's) compaction.
    compaction_wait_ms: positiveInt.default(5_000),
    // Bounds on receiving a request (headers; whole request): a client trickling bytes cannot hold
    // a connection forever. They end once the request is in; a long response stream is not cut.
    headers_timeout_ms: positiveInt.default(60_000),
    // 0 turns it off (e.g. for very large uploads on slow links through the passthrough routes).
    request_timeout_ms: z.number().int().min(0).default(300_000),
    // Callers without any credential: `off` keeps and reads no records for them; `shared` makes
    // them one tenant (a single-user local setup).
    anonymous: z.enum(['off', 'shared']).default('off'),
  })
  .strict()
  // Node refuses a headers timeout longer than the request timeout.
  .refine((s) => s.request_timeout_ms === 0 || s.headers_timeout_ms <= s.request_timeout_ms, {
    message: 'headers_timeout_ms must not exceed request_timeout_ms',
    path: ['headers_timeout_ms'],
  });

export const tokensSchema = z
  .object({
    cache_max_entries: positiveInt.default(100_000),
    cache_max_bytes: positiveInt.default(64 * 1024 * 1024),
    // The conversation items parsed lately, kept so that a request parses, hashes and counts only
    // what is new in it (body/seen-items.ts); 0 turns it off.
    memo_max_bytes: z
      .number()
      .int()
      .min(0)
      .default(64 * 1024 * 1024),
  })
  .strict();

export const backgroundSchema = z
  .object({
    enabled: z.boolean().default(true),
    concurrency: positiveInt.default(2),
    max_queue: positiveInt.default(256),
    // Memory the queued jobs' requests may hold in all; beyond it the oldest job is shed.
    max_queue_bytes: positiveInt.default(256 * 1024 * 1024),
    // Summarizer tokens (input + output) one tenant may spend per window; beyond it, `window`.
    tenant_tokens_per_window: positiveInt.optional(),
    tenant_window_seconds: positiveInt.default(3600),
  })
  .strict();

export const eventsSchema = z
  .object({
    // One event per request of a compacting model, the conversation index and the overview's counts
    // (the listing API and the dashboard read them); written after the response, never delaying it.
    enabled: z.boolean().default(true),
    // Keep the conversation id as the client sent it (at most 512 bytes), so the listing can show
    // it; false keeps only its keyed hash (the listing shows derived and hashed ids alike).
    keep_ids: z.boolean().default(true),
    max_per_conversation: positiveInt.default(200),
    // Conversations per tenant: past it (or past max_per_tenant) the tenant's least recently
    // written conversations are deleted, events and entry. The admin's listing holds every
    // tenant's, so one tenant's traffic never pushes another's out.
    max_conversations: positiveInt.default(10_000),
    // Events per tenant over all its conversations (docs/operations.md: the bytes this bounds).
    max_per_tenant: positiveInt.default(20_000),
    // Events waiting to be written; past it new ones are dropped (and counted).
    queue_max: positiveInt.default(1_000),
    // The in-memory store's events in all (JSON bytes); Redis bounds them by count and TTL.
    memory_max_bytes: positiveInt.default(64 * 1024 * 1024),
  })
  .strict();

// A client key is a bearer secret that recap checks itself: long enough that guessing is hopeless.
export const MIN_CLIENT_KEY_LENGTH = 32;

export const clientSchema = z
  .object({
    // The tenant (hashed in Redis keys) and what request logs name; a bounded, printable label.
    name: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be 1 to 64 letters, digits, ".", "_" or "-"'),
    key: z
      .string()
      .min(MIN_CLIENT_KEY_LENGTH, `must be at least ${MIN_CLIENT_KEY_LENGTH} characters (e.g. \`openssl rand -hex 32\`)`)
      .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces (it is sent as `Authorization: Bearer <key>`)'),
    // Globs (`*`, `?`) of the models this client may name; absent: any model.
    models: z.array(z.string().min(1)).min(1).optional(),
    // Overrides background.tenant_tokens_per_window for this client.
    tenant_tokens_per_window: positiveInt.optional(),
  })
  .strict();

const clientsSchema = z
  .array(clientSchema)
  .min(1)
  .superRefine((clients, ctx) => {
    const names = new Set<string>();
    const keys = new Set<string>();
    clients.forEach((c, i) => {
      if (names.has(c.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `duplicate client name "${c.name}"` });
      // The message never repeats a key.
      if (keys.has(c.key)) ctx.addIssue({ code: 'custom', path: [i, 'key'], message: 'the same key is given to an earlier client' });
      names.add(c.name);
      keys.add(c.key);
    });
  });

export const configSchema = z
  .object({
    server: serverSchema.default(serverSchema.parse({})),
    upstreams: z.record(z.string().min(1), upstreamSchema).refine((u) => Object.keys(u).length > 0, {
      message: 'at least one upstream is required',
    }),
    default_upstream: z.string().min(1).optional(),
    models: z.array(modelSchema).default([]),
    store: storeSchema.default(storeSchema.parse({})),
    tokens: tokensSchema.default(tokensSchema.parse({})),
    background: backgroundSchema.default(backgroundSchema.parse({})),
    events: eventsSchema.default(eventsSchema.parse({})),
    // When present, recap authenticates every caller itself (src/auth/).
    clients: clientsSchema.optional(),
  })
  .strict()
  .refine((c) => c.clients === undefined || c.server.anonymous === 'off', {
    message: 'anonymous callers are refused when clients are configured: remove server.anonymous or clients',
    path: ['server', 'anonymous'],
  });

export type Config = z.infer<typeof configSchema>;
export type UpstreamConfig = z.infer<typeof upstreamSchema>;
export type ModelConfig = z.infer<typeof modelSchema>;
export type CompactionConfig = z.infer<typeof compactionSchema>;
export type RecallConfig = z.infer<typeof recallSchema>;
export type StoreConfig = z.infer<typeof storeSchema>;
export type PricingConfig = z.infer<typeof pricingSchema>;
export type ClientConfig = z.infer<typeof clientSchema>;
export type EventsConfig = z.infer<typeof eventsSchema>;
