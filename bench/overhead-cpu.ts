// CPU time a process has used, from Linux's /proc/PID/task/*/schedstat (nanoseconds on a CPU,
// summed over its threads: V8 collects garbage on helper threads). Unlike latency, CPU per
// request hardly moves when other work shares the machine.
import { readdirSync, readFileSync } from 'node:fs';

/** Nanoseconds process `pid` has run so far; undefined where /proc is not there. */
export function cpuNs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  let total = 0;
  for (const task of tasks) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // a thread that ended since the listing took its time with it
    }
  }
  return total;
}

export type CpuSnapshot = Map<number, number | undefined>;

export function snapshot(pids: number[]): CpuSnapshot {
  return new Map(pids.map((pid) => [pid, cpuNs(pid)]));
}

/** Milliseconds of CPU `pid` used between two snapshots, per request served. */
export function msPerRequest(before: CpuSnapshot, after: CpuSnapshot, pid: number, requests: number): number | undefined {
  const a = before.get(pid);
  const b = after.get(pid);
  if (a === undefined || b === undefined || requests === 0) return undefined;
  return Math.round(((b - a) / 1e6 / requests) * 1000) / 1000;
}
