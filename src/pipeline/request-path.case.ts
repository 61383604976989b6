import { Writable } from 'node:stream';
import { authenticate } from '../auth/caller.js';
import { CredentialProofs } from '../auth/credential-proofs.js';
import { TenantBudget } from '../background/tenant-budget.js';
import { pinnedTask } from '../compaction/plan.js';
import { summaryCodec } from '../compaction/summary-message.js';
import { type Config, type ModelConfig, parseConfig } from '../config/config.js';
import { modelSchema } from '../config/schema.js';
import { messageHash } from '../conversation/canonical.js';
import type { Identity } from '../conversation/identify.js';
import { type FakeUpstream, type RecordedRequest, startFakeUpstream } from '../dev/fake-upstream.js';
import { createEventRecorder } from '../events/recorder.js';
import type { ChatMessage } from '../messages/types.js';
import { createLogger } from '../observability/logger.js';
import { createMetrics } from '../observability/metrics.js';
import { MemoryStore } from '../store/memory-store.js';
import type { ConversationRecord } from '../store/store.js';
import { createSummarizer } from '../summarizer/client.js';
import { resolveBudget } from '../tokens/budget.js';
import { createTokenCounter } from '../tokens/counter.js';
import { createUpstreamRegistry } from '../upstream/client.js';
import { chatWire } from '../wire/chat/items.js';
import type { CountedItems } from '../wire/format.js';
import { analyze } from './analyze.js';
import { createBackgroundCompactor } from './background.js';
import type { ForwardFirst } from './forward-first.js';
import type { PathDeps } from './route-plan.js';
import { planRules } from './plan-rules.js';
import { planCompaction } from './plan-conversation.js';
import type { PrepareRooms } from './prepare-room.js';
import { createRecords } from './records.js';
import { describeCheckpoint } from './span-checkpoint.js';
import { createTokenService } from './token-service.js';

// The request path below a route's counting, as recap serves it: planCompaction() → decide() with
// what it calls (the stored record, interim clearing, mayPay, the tenant's allowance, single flight,
// checkpointForCut and its validation) → the route plan, whose 2xx callback writes and confirms
// checkpoints and considers background preparation. Real in-memory store, real summarizer client
// against the fake upstream (real HTTP on loopback); a token count given per message stands in for
// the tokenizer, so that generated conversations can be any size at no cost. For tests of the rules.

export const SECRET = 'test-secret-0123456789';
/** The tenant every session's records belong to: summaries sealed with summaryCodec(SECRET, TENANT) are recap's own. */
export const TENANT = 'tenant';
const SUMMARIZER = 'gpt-test-summarizer';

export interface PathRules {
  trigger_ratio: number;
  target_ratio: number;
  summary_max_tokens: number;
  keep_instructions: boolean;
  /** null: clearing off. */
  clearing: { keep_last_steps: number; min_tokens: number } | null;
  /** The identifier ledger appended to summaries (on by default in recap). */
  ledger?: boolean;
  /** compaction.task_max_share: the opening task stays in every view up to this share of the budget. */
  task_max_share: number;
  /** compaction.prepare_ratio (default 0.8). */
  prepare_ratio?: number;
}

export interface PathScenario {
  /** The prompt budget the route worked out. */
  budget: number;
  rules: PathRules;
  /** The summarizer's answer to every call; null: it answers 500. */
  reply: string | null;
  /** background.enabled: a request whose summary is due may clear in the meantime (interim) and prepare ahead. */
  background?: boolean;
  /** recap pays the summarizer (its own key) while the upstream judges a caller it has not yet accepted (mayPay false). */
  unproven?: boolean;
  /** The tenant's summarizer allowance is spent (the window strategy instead). */
  allowanceSpent?: boolean;
  /** False: an anonymous caller, whose records recap neither reads nor writes. */
  keepsRecords?: boolean;
  /** A token count for every message (the request's and the ones recap builds). */
  count: (m: ChatMessage) => number;
  /** False: every request past the prepare line looks again (no room kept: prepare-room.ts). */
  rooms?: boolean;
}

export interface PathOutcome {
  action: string;
  /** Summarizer calls made while the request was planned (inline), before its reply. */
  inlineCalls: number;
  /** What went upstream: the view, or the client's own messages. */
  view: ChatMessage[];
  /** Why a request was degraded, from recap's warning. */
  reason?: string;
}

export interface Session {
  /**
   * Stores a checkpoint of `messages` whose summary covers the items after the pinned block up to
   * the first cut at or after `covered`, the way a compaction would have cut (test setup).
   */
  storeCheckpoint(messages: ChatMessage[], checkpoint: { covered: number; summary: string }): Promise<boolean>;
  /**
   * One request: planned, then answered 2xx (its checkpoints written and confirmed); background
   * work included. `forwardedFirst`: it went upstream as sent before it was planned.
   */
  send(messages: ChatMessage[], forwardedFirst?: ForwardFirst): Promise<PathOutcome>;
  /** The summarizer calls this session made. */
  summarizerCalls(): RecordedRequest[];
  record(): Promise<ConversationRecord | null>;
  close(): Promise<void>;
}

/** The transcript a summarizer call was shown (what the compaction evicted), as recap rendered it. */
export function transcriptOf(call: RecordedRequest): string {
  const request = String((call.json as { messages: { content: string }[] }).messages[1]!.content);
  return request.slice(request.indexOf('<transcript>\n') + '<transcript>\n'.length, request.lastIndexOf('\n</transcript>'));
}

/** Rooms never kept: a process that looks after every request past the prepare line. */
const KEEPS_NO_ROOM: PrepareRooms = { remember() {}, fitsRoom: () => false };

export interface RequestPath {
  fake: FakeUpstream;
  /** How many times the sessions read a conversation's record so far. */
  recordReads(): Promise<number>;
  session(s: PathScenario): Session;
  close(): Promise<void>;
}

/** The upstreams every session's summarizer calls go to: `paid` with recap's own key. */
function upstreamsOf(fake: FakeUpstream) {
  return { fake: { base_url: fake.url }, paid: { base_url: fake.url, api_key: 'sk-recap-own-key' } };
}

/** A process's config with one model (in the shape config/schema.ts gives it) and this scenario's background settings. */
function configFor(base: Config, s: PathScenario, n: number): Config {
  const r = s.rules;
  const compaction = {
    strategy: 'summarize',
    summarizer: { model: SUMMARIZER, upstream: s.unproven ? 'paid' : 'fake' },
    trigger_ratio: r.trigger_ratio,
    target_ratio: r.target_ratio,
    summary_max_tokens: r.summary_max_tokens,
    keep_instructions: r.keep_instructions,
    task_max_share: r.task_max_share,
    ...(r.prepare_ratio === undefined ? {} : { prepare_ratio: r.prepare_ratio }),
    ledger: r.ledger ?? false,
    clear_tool_results: r.clearing ? { keep_last_steps: r.clearing.keep_last_steps, min_tokens: r.clearing.min_tokens } : { enabled: false },
  };
  // The model's upstream has a name of its own per session: the credential proofs recap keeps
  // (per caller and upstream) then start afresh in every session.
  const upstream = `model-${n}`;
  return {
    ...base,
    upstreams: { ...base.upstreams, [upstream]: base.upstreams.fake! },
    models: [modelSchema.parse({ match: 'gpt-test', upstream, context_window: s.budget + 1000, max_output_tokens: 1000, compaction })],
    background: { ...base.background, enabled: s.background ?? false, ...(s.allowanceSpent ? { tenant_tokens_per_window: 1 } : {}) },
  };
}

/** Warnings recap logged, read back for the reasons it gives. */
class Warnings extends Writable {
  readonly reasons: string[] = [];
  override _write(chunk: Buffer, _enc: string, done: () => void) {
    for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
      const reason = (JSON.parse(line) as { reason?: string }).reason;
      if (reason) this.reasons.push(reason);
    }
    done();
  }
}

export async function startRequestPath(): Promise<RequestPath> {
  const fake = await startFakeUpstream({ summarizerModel: SUMMARIZER, maxRecorded: 100 });
  let scripted: string | null = null;
  // The summarizer calls of the session running now (sessions run one after the other).
  let calls: RecordedRequest[] = [];
  fake.setDefault((req) => {
    if (req.json?.model !== SUMMARIZER) return undefined;
    calls.push(req);
    return scripted === null ? { status: 500, body: { error: { message: 'summarizer down', type: 'server_error' } } } : { content: scripted };
  });
  // What lives for the whole process in recap, shared by the sessions as by a process's requests.
  const base = parseConfig(JSON.stringify({ server: { secret: SECRET }, upstreams: upstreamsOf(fake), models: [] }), 'request-path.json', {});
  const metrics = createMetrics();
  const warnings = new Warnings();
  const logger = createLogger('warn', warnings);
  const counter = createTokenCounter({ encoding: 'o200k_base' });
  const tokens = createTokenService(base, metrics);
  const upstreams = createUpstreamRegistry(base);
  const summarizer = createSummarizer(upstreams);
  // One store, as in a process: each session's conversation is a key of its own.
  const store = new MemoryStore({ ttlMs: 600_000, maxConversations: 10_000 });
  const proofs = new CredentialProofs({ config: base, secret: SECRET, store });
  let sessions = 0;

  return {
    fake,
    async recordReads() {
      const { values } = await metrics.storeDuration.get();
      return values.find((v) => v.metricName === 'recap_store_duration_seconds_count' && v.labels.op === 'load')?.value ?? 0;
    },
    session(s) {
      const n = ++sessions;
      const config = configFor(base, s, n);
      const model = config.models[0] as ModelConfig;
      const records = createRecords(store, metrics, logger, { perBranch: config.store.max_checkpoints, total: config.store.max_checkpoints * config.store.max_branches });
      const tenantBudget = new TenantBudget({ tokensPerWindow: config.background.tenant_tokens_per_window, windowMs: 3_600_000, store });
      // Reserved and settled at once: the allowance is spent before the session's first request.
      if (s.allowanceSpent) void tenantBudget.reserve(TENANT, 10).then((r) => r?.settle(10));
      const shared = {
        config,
        records,
        tokens,
        summarizer,
        tenantBudget,
        proofs,
        metrics,
        events: createEventRecorder({ config: config.events, events: store.events, metrics, logger }),
        logger,
        secret: SECRET,
      };
      const background = createBackgroundCompactor(shared, s.rooms === false ? KEEPS_NO_ROOM : undefined);
      const deps: PathDeps = { ...shared, background };
      const identity: Identity = { tenant: TENANT, conversation: `conversation-${n}`, explicit: true, keepsRecords: s.keepsRecords ?? true };
      const key = { tenant: identity.tenant, conversation: identity.conversation };
      const sessionCalls: RecordedRequest[] = [];
      calls = sessionCalls;
      const counted = (messages: ChatMessage[]): CountedItems<ChatMessage> => {
        const perItem = messages.map(s.count);
        const tokensIn = perItem.reduce((x, y) => x + y, 3);
        return { counter, perItem, fixedTokens: 3, hashes: messages.map(messageHash), countItem: s.count, tokensIn, toolsTokens: 0, rawTools: 0, rawOut: () => tokensIn };
      };
      const caller = authenticate({ authorization: 'Bearer sk-caller' }, { anonymous: 'off' });

      return {
        async storeCheckpoint(messages, cp) {
          const c = counted(messages);
          const a = analyze({ items: messages, tokens: c.perItem, hashes: c.hashes, primingTokens: 3, countItem: s.count, wire: chatWire, codec: summaryCodec(SECRET, TENANT) });
          const unit = a.seg.units.find((u) => u.start >= cp.covered && u.start > 0);
          if (!unit || unit.start >= a.rest.length) return false;
          // What such a cut keeps verbatim: the later instructions before it, the task of its round, the opening task.
          const round = a.seg.rounds[unit.round]!;
          const head = round.head !== null && round.head < a.seg.units.indexOf(unit) ? [a.seg.units[round.head]!.start] : [];
          const instructions = s.rules.keep_instructions ? a.seg.kinds.flatMap((k, i) => (k === 'instruction' && i < unit.start ? [i] : [])) : [];
          const task = pinnedTask(a.layout, planRules(model.compaction), s.budget).filter((i) => i < unit.start);
          const kept = [...new Set([...instructions, ...head, ...task])].sort((x, y) => x - y);
          return records.add(key, describeCheckpoint(a, { covered: unit.start, kept, cleared: [] }, cp.summary, 'test'), a.links);
        },
        async send(messages, forwardedFirst) {
          scripted = s.reply;
          const reasons = warnings.reasons.length;
          const callsBefore = sessionCalls.length;
          const input = { caller, model, signal: new AbortController().signal, bytes: 0, forwardedFirst };
          // The route's budget rule, here without tools: the model's window was set to make it s.budget.
          const budget = resolveBudget(model, {}, 0);
          const plan = await planCompaction(deps, input, { items: messages, wire: chatWire, identity, counted: counted(messages), budget });
          const outcome: PathOutcome = { action: plan.headers['x-recap-action']!, inlineCalls: sessionCalls.length - callsBefore, view: plan.view ?? messages };
          await plan.afterSuccess(200, undefined);
          await background.idle();
          const reason = warnings.reasons.slice(reasons).at(0);
          return reason === undefined ? outcome : { ...outcome, reason };
        },
        summarizerCalls: () => sessionCalls,
        async record() {
          return store.load(key);
        },
        async close() {
          await background.close();
          await shared.events.close();
        },
      };
    },
    async close() {
      await upstreams.close();
      await fake.close();
    },
  };
}
