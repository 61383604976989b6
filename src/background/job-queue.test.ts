import { describe, expect, it } from 'vitest';
import { JobQueue, type QueuedJob, sameBranch } from './job-queue.js';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
const tick = () => new Promise((r) => setImmediate(r));
const limits = { concurrency: 2, maxQueue: 10, maxQueueBytes: 1e9 };
const job = (group: string, links: string[], run: () => Promise<void>, bytes = 1): QueuedJob => ({ group, links, bytes, run });

describe('JobQueue', () => {
  it('runs at most `concurrency` jobs at once and the rest in order', async () => {
    const started: string[] = [];
    const gates = new Map<string, ReturnType<typeof deferred>>();
    const q = new JobQueue(limits);
    for (const k of ['a', 'b', 'c']) {
      gates.set(k, deferred());
      q.push(
        job(k, [k], async () => {
          started.push(k);
          await gates.get(k)!.promise;
        }),
      );
    }
    expect(started).toEqual(['a', 'b']);
    expect(q.running).toBe(2);
    expect(q.queued).toBe(1);
    gates.get('a')!.resolve();
    await tick();
    expect(started).toEqual(['a', 'b', 'c']);
    gates.get('b')!.resolve();
    gates.get('c')!.resolve();
    await q.idle();
    expect(q.running).toBe(0);
  });

  it('keeps one job per branch: a newer request replaces the queued one, an older one is dropped', async () => {
    const ran: string[] = [];
    const gate = deferred();
    const q = new JobQueue({ ...limits, concurrency: 1 });
    q.push(job('other', ['x'], () => gate.promise));
    expect(q.push(job('c', ['l1', 'l2'], async () => void ran.push('turn 2')))).toBe('queued');
    expect(q.push(job('c', ['l1', 'l2', 'l3'], async () => void ran.push('turn 3')))).toBe('replaced');
    expect(q.push(job('c', ['l1', 'l2'], async () => void ran.push('turn 2 again')))).toBe('stale');
    expect(q.push(job('c', ['l1', 'other-branch'], async () => void ran.push('branch')))).toBe('queued');
    expect(q.queued).toBe(2);
    gate.resolve();
    await q.idle();
    expect(ran).toEqual(['turn 3', 'branch']);
  });

  it('never runs two jobs of one branch at once, while other branches and conversations go ahead', async () => {
    const started: string[] = [];
    const gate = deferred();
    const q = new JobQueue({ ...limits, concurrency: 3 });
    q.push(
      job('c', ['l1'], async () => {
        started.push('first');
        await gate.promise;
      }),
    );
    q.push(job('c', ['l1', 'l2'], async () => void started.push('same branch')));
    q.push(job('c', ['m1'], async () => void started.push('other branch')));
    q.push(job('d', ['l1'], async () => void started.push('other conversation')));
    await tick();
    expect(started).toEqual(['first', 'other branch', 'other conversation']);
    gate.resolve();
    await q.idle();
    expect(started.at(-1)).toBe('same branch');
  });

  it('sheds the oldest waiting job beyond the count or the byte bound', async () => {
    const shed: string[] = [];
    const gate = deferred();
    const q = new JobQueue({ concurrency: 1, maxQueue: 2, maxQueueBytes: 100, onShed: (j) => shed.push(j.group) });
    q.push(job('busy', ['b'], () => gate.promise));
    q.push(job('old', ['o'], async () => {}));
    q.push(job('mid', ['m'], async () => {}));
    q.push(job('new', ['n'], async () => {}));
    expect(shed).toEqual(['old']);
    q.push(job('huge', ['h'], async () => {}, 100));
    expect(shed).toEqual(['old', 'mid', 'new']);
    gate.resolve();
    await q.idle();
  });

  it('reports a failing job and keeps going', async () => {
    const failures: string[] = [];
    const q = new JobQueue({ ...limits, concurrency: 1, onError: (j) => failures.push(j.group) });
    let after = false;
    q.push(
      job('bad', ['b'], async () => {
        throw new Error('boom');
      }),
    );
    q.push(
      job('good', ['g'], async () => {
        after = true;
      }),
    );
    await q.idle();
    expect(failures).toEqual(['bad']);
    expect(after).toBe(true);
  });
});

describe('sameBranch', () => {
  it('relates a request to its continuations, not to another continuation of the same opening', () => {
    expect(sameBranch(['a', 'b'], ['a', 'b', 'c'])).toBe(true);
    expect(sameBranch(['a', 'b', 'c'], ['a', 'b'])).toBe(true);
    expect(sameBranch(['a', 'b', 'c'], ['a', 'x', 'y'])).toBe(false);
  });
});
