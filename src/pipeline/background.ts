import { JobQueue } from '../background/job-queue.js';
import { planPrepareSteps, prepareRoomSteps } from '../compaction/plan.js';
import { createSlicer, runSliced, SLICE_MS } from '../slicing/slicer.js';
import { landedOnBranch } from '../store/checkpoints.js';
import type { ConversationKey } from '../store/store.js';
import type { Analysis } from './analyze.js';
import { type Base, baseView, candidatesSteps } from './choose-view.js';
import { costPlanning, isFirstCut } from './cost-plan.js';
import type { Decision } from './decide.js';
import type { PipelineDeps } from './pipeline-deps.js';
import { planRules } from './plan-rules.js';
import { type CountedRequest, createPrepareRooms, type PrepareRooms } from './prepare-room.js';
import { claimCompaction, waitForHolders } from './single-flight.js';
import { checkpointForCut, prefixOfCut, TENANT_BUDGET_EXCEEDED } from './span-checkpoint.js';
import { type StepContext, summarizerRecorder } from './step-context.js';

// Rule 10: once a forwarded view passes prepare × budget, the checkpoint that the next overflow
// will need is made after the response, so the turn that crosses the trigger finds it ready. At
// most one job per conversation branch is queued or running (job-queue.ts); a job plans only once
// it runs, from the newest checkpoint stored by then, and claims its prefix like an inline
// compaction does (waiting for one ahead of it on its branch), so preparing never costs more
// summarizer calls than compacting inline would.

export interface BackgroundCompactor {
  /**
   * Looks whether the view passes prepare × budget and queues the job if so; `counted`, the
   * request as counted, when what the look leaves below the line is to be remembered (prepare-room.ts).
   */
  consider<T>(ctx: StepContext, a: Analysis<T>, decision: Decision<T>, budget: number, bytes: number, counted?: CountedRequest): void;
  /** Whether the request provably adds too little to its conversation's last look to need another (prepare-room.ts). */
  fitsRoom(key: ConversationKey, counted: CountedRequest, budget: number): boolean;
  idle(): Promise<void>;
  close(): Promise<void>;
}

type Outcome = 'done' | 'failed' | 'skipped';

const MAX_ROUNDS = 8;
const HOLDER_MARGIN_MS = 5_000;

/** `rooms`: what looks left below the line (a test passes one that keeps nothing, to compare). */
export function createBackgroundCompactor(deps: Omit<PipelineDeps, 'background'>, rooms: PrepareRooms = createPrepareRooms()): BackgroundCompactor {
  const { metrics, logger, config } = deps;
  const queue = new JobQueue({
    concurrency: config.background.concurrency,
    maxQueue: config.background.max_queue,
    maxQueueBytes: config.background.max_queue_bytes,
    onChange: (queued, running) => {
      metrics.backgroundQueued.set(queued);
      metrics.backgroundRunning.set(running);
    },
    onShed: () => metrics.backgroundJobs.inc({ outcome: 'shed' }),
    onError: (_job, err) => {
      metrics.backgroundJobs.inc({ outcome: 'failed' });
      logger.error({ err }, 'background compaction crashed');
    },
  });
  const shutdown = new AbortController();
  const roomOf = (key: ConversationKey) => `${key.tenant}.${key.conversation}`;

  async function run<T>(ctx: StepContext, a: Analysis<T>, budget: number): Promise<Outcome> {
    // A compaction ahead of the job is waited for as long as its summarizer call may take.
    const waitUntil = Date.now() + ctx.model.compaction.summarizer!.timeout_ms + HOLDER_MARGIN_MS;
    let record = await deps.records.load(ctx.key);
    const first = isFirstCut(record === 'unavailable' ? null : record, a);
    const rules = planRules(costPlanning(ctx.deps.config.models, ctx.model, a, budget, first)?.compaction ?? ctx.model.compaction);
    for (let round = 0; round < MAX_ROUNDS; round++) {
      if (record === 'unavailable') return 'failed';
      const all = await runSliced(candidatesSteps(a, record), ctx.pause);
      const from = all[all.length - 1]!.base;
      // Planned from what is stored now: skipped when the newest checkpoint still leaves room.
      const cut = await runSliced(planPrepareSteps(a.layout, baseView(a, from), budget, rules), ctx.pause);
      if (!cut || !(await deps.tenantBudget.allows(ctx.identity.tenant))) return 'skipped';
      const prefix = prefixOfCut(cut);
      const claim = { id: a.links[prefix - 1]!, prefix, link: a.links[prefix - 1]! };
      // As inline (decide.ts): ahead of what the base's summary covers, not of the prefix it clears.
      const claimed = await claimCompaction(deps.records, ctx.key, claim, a.links, from.covered);
      if (claimed.kind === 'unavailable') return 'failed';
      if (claimed.kind === 'wait' && !(await waitForHolders(deps.records, ctx.key, claimed.holders, waitUntil, shutdown.signal))) return 'skipped';
      if (claimed.kind !== 'held') {
        record = await deps.records.load(ctx.key);
        continue;
      }
      try {
        const fresh = await deps.records.load(ctx.key);
        if (fresh !== 'unavailable' && landedOnBranch(record, fresh, a.links)) {
          record = fresh;
          continue;
        }
        const made = await checkpointForCut(ctx, a, from, cut, 'summarize', 'background', shutdown.signal);
        if (!made.ok) return made.reason === TENANT_BUDGET_EXCEEDED ? 'skipped' : 'failed';
        return (await deps.records.add(ctx.key, made.checkpoint, a.links)) ? 'done' : 'failed';
      } finally {
        await claimed.claim.release();
      }
    }
    return 'skipped';
  }

  // Looks at requests not yet queued: idle() waits for them too.
  const looking = new Set<Promise<void>>();

  function enqueue<T>(jobCtx: StepContext, a: Analysis<T>, links: string[], budget: number, bytes: number): void {
    const outcome = queue.push({
      group: `${jobCtx.key.tenant}.${jobCtx.key.conversation}`,
      links,
      bytes,
      run: async () => {
        const result = await run(jobCtx, a, budget);
        metrics.backgroundJobs.inc({ outcome: result });
        logger.info({ conversation: jobCtx.conversation, outcome: result }, 'background compaction');
      },
    });
    if (outcome === 'queued' || outcome === 'replaced') logger.debug({ conversation: jobCtx.conversation, outcome }, 'background compaction queued');
  }

  return {
    consider(ctx, a, decision, budget, bytes, counted) {
      const { compaction } = ctx.model;
      if (!config.background.enabled || !ctx.keepsRecords || compaction.strategy !== 'summarize' || decision.action === 'degraded') return;
      const jobCtx = backgroundContext(ctx, shutdown.signal);
      const look = worthPreparing(jobCtx, a, decision.furthest ?? decision.base, budget)
        .then(({ links, room }) => {
          if (counted) rooms.remember(roomOf(ctx.key), counted, budget, room);
          if (links) enqueue(jobCtx, a, links, budget, bytes);
        })
        .catch((err: unknown) => logger.error({ err }, 'background compaction not queued'))
        .finally(() => looking.delete(look));
      looking.add(look);
    },
    fitsRoom: (key, counted, budget) => rooms.fitsRoom(roomOf(key), counted, budget),
    idle: async () => {
      while (looking.size > 0) await Promise.all(looking);
      await queue.idle();
    },
    close: async () => {
      shutdown.abort();
      await Promise.all(looking);
      await queue.close();
    },
  };
}

/**
 * A first look from what the request saw (the job plans again when it runs), in slices as the
 * request's own planning is: the links of a job worth queuing, else null, and the room the view
 * leaves before one could be (prepareRoomSteps). Planned by cost (rule 14), the lines move with
 * the conversation's growth from one request to the next, so no room is kept (0). The tenant's
 * allowance is checked when the job runs: it is kept in the store.
 */
async function worthPreparing<T>(ctx: StepContext, a: Analysis<T>, from: Base, budget: number): Promise<{ links: string[] | null; room: number }> {
  // The base the look starts from carries no compaction of this conversation: a cut would be its first.
  const first = from.checkpoint === null && from.summary === null && from.cleared.size === 0;
  const cost = costPlanning(ctx.deps.config.models, ctx.model, a, budget, first);
  const rules = planRules(cost?.compaction ?? ctx.model.compaction);
  const view = baseView(a, from);
  const room = cost ? 0 : await runSliced(prepareRoomSteps(a.layout, view, budget, rules), ctx.pause);
  if (room > 0 || !(await runSliced(planPrepareSteps(a.layout, view, budget, rules), ctx.pause))) return { links: null, room };
  return { links: await runSliced(a.linksSteps(), ctx.pause), room };
}

/**
 * What a queued job keeps of its request: nothing that reaches the request or response objects
 * (their headers hold the client's credential). The client's Authorization is kept only when the
 * summarizer's upstream has no key of its own, because the summarizer call must then
 * authenticate as the client (docs/reliability-and-security.md, Secrets): until the job has run.
 * A summarizer on the shared prefix keeps the client's body (and its API headers: no credential).
 */
function backgroundContext(ctx: StepContext, signal: AbortSignal): StepContext {
  const summarizer = ctx.model.compaction.summarizer!;
  // On the shared prefix the summarizer is the conversation's own upstream.
  const upstream = ctx.deps.config.upstreams[summarizer.shared_prefix ? ctx.model.upstream : (summarizer.upstream ?? ctx.model.upstream)];
  return {
    deps: ctx.deps,
    model: ctx.model,
    identity: ctx.identity,
    key: ctx.key,
    counter: ctx.counter,
    keepsRecords: ctx.keepsRecords,
    audit: ctx.audit,
    conversation: ctx.conversation,
    signal,
    pause: createSlicer(SLICE_MS),
    authorization: upstream?.api_key ? undefined : ctx.authorization,
    // The request's body, kept with its analysis until the job has run (its size is the job's `bytes`).
    sharedPrefix: ctx.sharedPrefix,
    recordSummarizer: summarizerRecorder(ctx.deps, ctx.model, ctx.identity.tenant),
  };
}
