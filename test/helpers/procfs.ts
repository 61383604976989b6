import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

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

/** Inodes of the TCP sockets (IPv4 and IPv6) bound to local port `port`. */
function socketInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue; // no IPv6 here
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const local = fields[1];
      if (local && Number.parseInt(local.slice(local.lastIndexOf(':') + 1), 16) === port) inodes.add(fields[9]!);
    }
  }
  return inodes;
}

/** Which of `candidates` holds the TCP socket whose local port is `port` (the client side of a connection), if any. */
export function processOfLocalPort(port: number, candidates: readonly number[]): number | undefined {
  const inodes = socketInodes(port);
  return candidates.find((pid) => {
    try {
      return readdirSync(`/proc/${pid}/fd`).some((fd) => {
        try {
          const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
          return target.startsWith('socket:[') && inodes.has(target.slice(8, -1));
        } catch {
          return false; // closed meanwhile
        }
      });
    } catch {
      return false; // gone meanwhile
    }
  });
}

/** A process's resident memory now and at its peak so far (VmRSS, VmHWM), in MiB. */
export function residentMemory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)![1]);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}
