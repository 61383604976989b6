import { readdirSync, readFileSync } from 'node:fs';

// The live processes of this machine as Linux's /proc shows them, for tests that check what is
// left running.

export interface ProcessStat {
  pid: number;
  /** R, S, D, Z (a zombie: dead, not yet reaped), ... */
  state: string;
  ppid: number;
  pgrp: number;
}

function pids(): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number);
}

/** Every process's state, parent and process group (one that ends meanwhile is left out). */
export function processStats(): ProcessStat[] {
  return pids().flatMap((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // After "pid (comm) ", which may itself hold spaces and parentheses: state, ppid, pgrp, ...
      const [state = '', ppid, pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return [{ pid, state, ppid: Number(ppid), pgrp: Number(pgrp) }];
    } catch {
      return [];
    }
  });
}

/** PIDs of live processes whose command line mentions `text` (a config file's path, say). */
export function processesMentioning(text: string): number[] {
  return pids().filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(text);
    } catch {
      return false; // gone meanwhile
    }
  });
}
