import { describe, expect, it } from 'vitest';
import { JobQueue } from './job-queue.js';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('JobQueue', () => {
  it('runs at most `concurrency` jobs at once and the rest in order', async () => {
    const started: string[] = [];
    const gates = new Map<string, ReturnType<typeof deferred>>();
    const q = new JobQueue({ concurrency: 2, maxQueue: 10 });
    for (const k of ['a', 'b', 'c']) {
      gates.set(k, deferred());
      q.push(k, async () => {
        started.push(k);
        await gates.get(k)!.promise;
      });
    }
    expect(started).toEqual(['a', 'b']);
    expect(q.running).toBe(2);
    expect(q.queued).toBe(1);
    gates.get('a')!.resolve();
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['a', 'b', 'c']);
    gates.get('b')!.resolve();
    gates.get('c')!.resolve();
    await q.idle();
    expect(q.running).toBe(0);
  });

  it('never queues a key twice and sheds the oldest waiting job when full', async () => {
    const shed: string[] = [];
    const gate = deferred();
    const ran: string[] = [];
    const q = new JobQueue({ concurrency: 1, maxQueue: 2, onShed: (k) => shed.push(k) });
    q.push('busy', () => gate.promise);
    expect(q.push('busy', async () => {})).toBe(false);
    q.push('old', async () => void ran.push('old'));
    q.push('mid', async () => void ran.push('mid'));
    q.push('new', async () => void ran.push('new'));
    expect(shed).toEqual(['old']);
    gate.resolve();
    await q.idle();
    expect(ran).toEqual(['mid', 'new']);
  });

  it('reports a failing job and keeps going', async () => {
    const failures: string[] = [];
    const q = new JobQueue({ concurrency: 1, maxQueue: 5, onError: (k) => failures.push(k) });
    let after = false;
    q.push('bad', async () => {
      throw new Error('boom');
    });
    q.push('good', async () => {
      after = true;
    });
    await q.idle();
    expect(failures).toEqual(['bad']);
    expect(after).toBe(true);
  });
});
