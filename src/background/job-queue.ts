// A per-process queue for background compactions (rule 10), one job per conversation branch: at
// most `concurrency` running, at most `maxQueue` jobs and `maxQueueBytes` of their requests
// waiting (beyond, the job queued longest ago is shed: its conversation will compact inline
// later). A job carries the chain links of its request, so the queue can tell branches apart: a
// newer request of a branch replaces that branch's queued job (it plans from fresher data), an
// older one is dropped, and a branch with a job running waits for it rather than run a second.

export interface JobQueueOptions {
  concurrency: number;
  maxQueue: number;
  maxQueueBytes: number;
  onChange?: (queued: number, running: number) => void;
  onShed?: (job: QueuedJob) => void;
  onError?: (job: QueuedJob, err: unknown) => void;
}

export interface QueuedJob {
  /** The conversation (tenant and conversation hash). */
  group: string;
  /** Hash-chain links of the request the job was planned from. */
  links: readonly string[];
  /** Memory the job holds (its request), for the queue's byte bound. */
  bytes: number;
  run: () => Promise<void>;
}

export type PushOutcome = 'queued' | 'replaced' | 'stale' | 'closed';

/** Whether one request continues the other (or they are the same): they are on one branch. */
export function sameBranch(a: readonly string[], b: readonly string[]): boolean {
  const n = Math.min(a.length, b.length);
  return n === 0 || a[n - 1] === b[n - 1];
}

function isNewer(job: QueuedJob, than: QueuedJob): boolean {
  return job.links.length >= than.links.length;
}

export class JobQueue {
  private readonly waiting: QueuedJob[] = [];
  private readonly active = new Set<QueuedJob>();
  private readonly idleWaiters: (() => void)[] = [];
  private waitingBytes = 0;
  private closed = false;

  constructor(private readonly opts: JobQueueOptions) {}

  get queued(): number {
    return this.waiting.length;
  }

  get running(): number {
    return this.active.size;
  }

  push(job: QueuedJob): PushOutcome {
    if (this.closed) return 'closed';
    const rival = this.waiting.findIndex((q) => q.group === job.group && sameBranch(q.links, job.links));
    if (rival >= 0) {
      const queued = this.waiting[rival]!;
      if (!isNewer(job, queued)) return 'stale';
      this.waitingBytes += job.bytes - queued.bytes;
      this.waiting[rival] = job;
      this.shed();
      this.pump();
      return 'replaced';
    }
    this.waiting.push(job);
    this.waitingBytes += job.bytes;
    this.shed();
    this.pump();
    return 'queued';
  }

  /** Resolves once nothing is queued or running (tests, benchmarks and shutdown use it). */
  idle(): Promise<void> {
    if (this.waiting.length === 0 && this.active.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Drops what is still queued; running jobs finish. */
  close(): Promise<void> {
    this.closed = true;
    this.waiting.length = 0;
    this.waitingBytes = 0;
    this.changed();
    return this.idle();
  }

  private shed(): void {
    while (this.waiting.length > this.opts.maxQueue || (this.waiting.length > 1 && this.waitingBytes > this.opts.maxQueueBytes)) {
      const shed = this.waiting.shift()!;
      this.waitingBytes -= shed.bytes;
      this.opts.onShed?.(shed);
    }
  }

  private blocked(job: QueuedJob): boolean {
    for (const running of this.active) if (running.group === job.group && sameBranch(running.links, job.links)) return true;
    return false;
  }

  private pump(): void {
    for (let i = 0; i < this.waiting.length && this.active.size < this.opts.concurrency; ) {
      const job = this.waiting[i]!;
      if (this.blocked(job)) {
        i++;
        continue;
      }
      this.waiting.splice(i, 1);
      this.waitingBytes -= job.bytes;
      this.active.add(job);
      job
        .run()
        .catch((err: unknown) => this.opts.onError?.(job, err))
        .finally(() => {
          this.active.delete(job);
          this.pump();
        });
    }
    this.changed();
  }

  private changed(): void {
    this.opts.onChange?.(this.waiting.length, this.active.size);
    if (this.waiting.length === 0 && this.active.size === 0) {
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }
}
