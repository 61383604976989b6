// The four things the overhead bench sends the same requests to, each its own process on loopback.
import { printedUrl, spawnNode, type Child } from './overhead-processes.js';
import { startPortkey } from './overhead-portkey.js';
import { startRecapChild } from './overhead-recap.js';

export type TargetName = 'direct' | 'pipe' | 'portkey' | 'recap' | 'recap-2w';

export interface Target {
  name: TargetName;
  /** Base URL ending in /v1. */
  url: string;
  headers: Record<string, string>;
  /** The process whose CPU serves this target's requests (for `direct`, the upstream itself). */
  pid?: number;
}

export interface Unavailable {
  name: TargetName;
  reason: string;
}

export interface Targets {
  upstreamUrl: string;
  /** In send order; `direct` first. */
  live: Target[];
  /** Measured for throughput only: recap with two workers (`recap serve --workers 2`). */
  throughputOnly: Target[];
  unavailable: Unavailable[];
  portkeyVersion?: string;
  recapStartupMs: number;
  stop(): Promise<void>;
}

export const CLIENT_HEADERS = { 'content-type': 'application/json', authorization: 'Bearer sk-overhead-bench' };

/** A bench script (`node --import tsx FILE ARGS`) that prints its URL once it listens. */
export async function startScript(name: string, args: string[]): Promise<{ child: Child; url: string }> {
  const child = spawnNode(name, ['--import', 'tsx', ...args], { readStdout: true });
  try {
    return { child, url: await printedUrl(child, 20_000) };
  } catch (err) {
    await child.stop();
    throw err;
  }
}

/** `recapCli`: how to run recap's CLI (overhead-recap.ts), normally the compiled one as `npm start` runs it. */
export async function startTargets(recapCli: string[]): Promise<Targets> {
  const children: Child[] = [];
  const stop = async () => {
    await Promise.all(children.map((c) => c.stop()));
  };
  try {
    const upstream = await startScript('upstream', ['bench/overhead-upstream.ts']);
    children.push(upstream.child);
    const origin = new URL(upstream.url).origin;
    const pipe = await startScript('pipe', ['bench/overhead-pipe.ts', '--upstream', origin]);
    children.push(pipe.child);
    const recap = await startRecapChild(upstream.url, recapCli);
    children.push(recap.child);
    const recap2 = await startRecapChild(upstream.url, recapCli, 2);
    children.push(recap2.child);

    const live: Target[] = [
      { name: 'direct', url: upstream.url, headers: CLIENT_HEADERS, pid: upstream.child.process.pid },
      { name: 'pipe', url: pipe.url, headers: CLIENT_HEADERS, pid: pipe.child.process.pid },
    ];
    const unavailable: Unavailable[] = [];
    let portkeyVersion: string | undefined;
    try {
      const portkey = await startPortkey(upstream.url);
      children.push(portkey.child);
      portkeyVersion = portkey.version;
      live.push({ name: 'portkey', url: portkey.url, headers: { ...CLIENT_HEADERS, ...portkey.headers }, pid: portkey.child.process.pid });
    } catch (err) {
      unavailable.push({ name: 'portkey', reason: (err as Error).message.split('\n')[0] ?? 'unknown' });
    }
    live.push({ name: 'recap', url: recap.url, headers: CLIENT_HEADERS, pid: recap.child.process.pid });
    const throughputOnly: Target[] = [{ name: 'recap-2w', url: recap2.url, headers: CLIENT_HEADERS }];
    return { upstreamUrl: upstream.url, live, throughputOnly, unavailable, portkeyVersion, recapStartupMs: recap.startupMs, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
