// A per-process queue for background compactions: at most `concurrency` running, at most
// `maxQueue` waiting. When full, the job queued longest ago is shed (its conversation will simply
// compact inline later); a job whose key is already queued or running is not queued twice.

export interface JobQueueOptions {
  concurrency: number;
  maxQueue: number;
  onChange?: (queued: number, running: number) => void;
  onShed?: (key: string) => void;
  onError?: (key: string, err: unknown) => void;
}

interface Job {
  key: string;
  run: () => Promise<void>;
}

export class JobQueue {
  private readonly waiting: Job[] = [];
  private readonly active = new Set<string>();
  private readonly idleWaiters: (() => void)[] = [];
  private closed = false;

  constructor(private readonly opts: JobQueueOptions) {}

  get queued(): number {
    return this.waiting.length;
  }

  get running(): number {
    return this.active.size;
  }

  has(key: string): boolean {
    return this.active.has(key) || this.waiting.some((j) => j.key === key);
  }

  /** Queues a job unless one with the same key is queued or running; returns whether it was queued. */
  push(key: string, run: () => Promise<void>): boolean {
    if (this.closed || this.has(key)) return false;
    if (this.waiting.length >= this.opts.maxQueue) {
      const shed = this.waiting.shift()!;
      this.opts.onShed?.(shed.key);
    }
    this.waiting.push({ key, run });
    this.pump();
    return true;
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
    this.changed();
    return this.idle();
  }

  private pump(): void {
    while (this.active.size < this.opts.concurrency && this.waiting.length > 0) {
      const job = this.waiting.shift()!;
      this.active.add(job.key);
      job
        .run()
        .catch((err: unknown) => this.opts.onError?.(job.key, err))
        .finally(() => {
          this.active.delete(job.key);
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
