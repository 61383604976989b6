import { JobQueue } from '../background/job-queue.js';
import { planPrepare } from '../compaction/plan.js';
import type { Analysis } from './analyze.js';
import type { Base } from './choose-view.js';
import { type Decision, costsOf } from './compact-inline.js';
import { checkpointForSpan } from './span-checkpoint.js';
import type { PipelineDeps } from './pipeline-deps.js';
import { acquireCompactionLock, releaseCompactionLock } from './single-flight.js';
import type { StepContext } from './step-context.js';

// Rule 10: once a forwarded view passes prepare × budget, the checkpoint that the next overflow
// will need is made after the response, so the turn that crosses the trigger finds it ready.
// Jobs are deduplicated per conversation and boundary in this process (the queue) and across
// processes (the compaction lock, then a reread of the record).

export interface BackgroundCompactor {
  consider(ctx: StepContext, a: Analysis, decision: Decision, budget: number): void;
  idle(): Promise<void>;
  close(): Promise<void>;
}

export function createBackgroundCompactor(deps: Omit<PipelineDeps, 'background'>): BackgroundCompactor {
  const { metrics, logger, config } = deps;
  const queue = new JobQueue({
    concurrency: config.background.concurrency,
    maxQueue: config.background.max_queue,
    onChange: (queued, running) => {
      metrics.backgroundQueued.set(queued);
      metrics.backgroundRunning.set(running);
    },
    onShed: () => metrics.backgroundJobs.inc({ outcome: 'shed' }),
    onError: (_key, err) => {
      metrics.backgroundJobs.inc({ outcome: 'failed' });
      logger.error({ err }, 'background compaction crashed');
    },
  });
  const shutdown = new AbortController();

  async function run(ctx: StepContext, a: Analysis, base: Base, boundary: number): Promise<string> {
    const { compaction } = ctx.model;
    const record = await deps.records.load(ctx.key);
    if (record === 'unavailable') return 'failed';
    if (record?.checkpoints.some((cp) => cp.covered >= boundary && a.links[cp.covered - 1] === cp.chainHash)) return 'skipped';
    if (!(await deps.tenantBudget.allows(ctx.identity.tenant))) return 'skipped';
    const lock = await acquireCompactionLock(deps.records, ctx.key, compaction.summarizer!.timeout_ms);
    if (!lock.held) return lock.reason === 'busy' ? 'skipped' : 'failed';
    try {
      const made = await checkpointForSpan(ctx, a, base, boundary, 'summarize', 'background', shutdown.signal);
      if (!made.ok) return 'failed';
      return (await deps.records.add(ctx.key, made.checkpoint, record?.version ?? 0)) ? 'done' : 'failed';
    } finally {
      await releaseCompactionLock(deps.records, ctx.key, lock.token);
    }
  }

  return {
    consider(ctx, a, decision, budget) {
      const { compaction } = ctx.model;
      if (!config.background.enabled || compaction.strategy !== 'summarize' || decision.action === 'degraded') return;
      // Prepare from the most compacted checkpoint already stored: if it still leaves room below
      // the prepare line, the next overflow will use it and there is nothing to do yet.
      const from = decision.furthest ?? decision.base;
      const eviction = planPrepare(costsOf(a, from), budget, compaction);
      if (!eviction) return;
      const boundary = from.covered + eviction.messages;
      const key = `${ctx.key.tenant}.${ctx.key.conversation}.${boundary}`;
      const queued = queue.push(key, async () => {
        const outcome = await run(ctx, a, from, boundary);
        metrics.backgroundJobs.inc({ outcome });
        logger.info({ conversation: ctx.log.conversation, boundary, outcome }, 'background compaction');
      });
      if (queued) logger.debug({ conversation: ctx.log.conversation, boundary }, 'background compaction queued');
    },
    idle: () => queue.idle(),
    close: async () => {
      shutdown.abort();
      await queue.close();
    },
  };
}
