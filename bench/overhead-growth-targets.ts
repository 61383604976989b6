// The growth table's targets (overhead-growth.ts), each its own process on loopback: the sink
// upstream directly, the byte pipe in front of it, Portkey routed to it, and recap with a model
// entry per size and path whose window the history fills to the path's share. recap runs as users
// run it: the Redis store and a configured client's key (GROWTH_STORE=memory, GROWTH_CREDENTIAL=caller
// measure the in-memory store and the caller's own credential instead).
import type { GrowthSetup } from './overhead-growth.js';
import type { Child } from './overhead-processes.js';
import { startPortkey } from './overhead-portkey.js';
import { startRecapChild } from './overhead-recap.js';
import { CLIENT_HEADERS, startScript, type Target, type Unavailable } from './overhead-targets.js';

export interface GrowthModel {
  match: string;
  contextWindow: number;
  maxOutputTokens: number;
}

export interface GrowthTargets {
  live: Target[];
  unavailable: Unavailable[];
  portkeyVersion?: string;
  /** recap's log lines (JSON) as they come: its request log holds its own time per request. */
  recapLog: Record<string, unknown>[];
  stop(): Promise<void>;
}

/** The client key every target is sent (recap checks it when `clients` is configured; the others pass it on). */
const CLIENT_KEY = 'rk-growth-bench-0123456789abcdef0123456789abcdef';
export const GROWTH_HEADERS = { ...CLIENT_HEADERS, authorization: `Bearer ${CLIENT_KEY}` };

/** recap's config (its store from REDIS_URL): the sink as its upstream, one model per size, a log line per request. */
export function growthConfigYaml(sinkUrl: string, models: readonly GrowthModel[], setup: GrowthSetup): string {
  const lines = ['server:', '  log_level: info', 'upstreams:', '  sink:', `    base_url: ${sinkUrl}`];
  // A configured client's key never goes upstream: recap sends the upstream's own.
  if (setup.credential === 'client') lines.push('    api_key: sk-growth-sink', 'clients:', '  - name: growth-bench', `    key: ${CLIENT_KEY}`);
  lines.push('models:');
  for (const m of models) {
    lines.push(
      `  - match: "${m.match}"`,
      '    upstream: sink',
      `    context_window: ${m.contextWindow}`,
      `    max_output_tokens: ${m.maxOutputTokens}`,
      '    encoding: o200k_base',
      '    compaction:',
      '      strategy: summarize',
      '      summarizer: { model: gpt-bench-summarizer }',
    );
  }
  return `${lines.join('\n')}\n`;
}

function collectLines(child: Child, into: Record<string, unknown>[]): void {
  let rest = '';
  child.process.stdout?.on('data', (chunk: Buffer) => {
    const lines = (rest + chunk.toString('utf8')).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      try {
        into.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // not a log line
      }
    }
  });
}

/** `recapCli`: the compiled CLI (overhead-build.ts). */
export async function startGrowthTargets(recapCli: string, models: readonly GrowthModel[], setup: GrowthSetup): Promise<GrowthTargets> {
  const children: Child[] = [];
  const stop = async () => {
    await Promise.all(children.map((c) => c.stop()));
  };
  try {
    const sink = await startScript('sink', ['bench/overhead-sink.ts']);
    children.push(sink.child);
    const pipe = await startScript('pipe', ['bench/overhead-pipe.ts', '--upstream', new URL(sink.url).origin]);
    children.push(pipe.child);
    const recap = await startRecapChild(sink.url, [recapCli], 1, {
      configYaml: growthConfigYaml(sink.url, models, setup),
      readStdout: true,
      ...(setup.store === 'memory' ? { env: { REDIS_URL: undefined } } : {}),
    });
    children.push(recap.child);
    const recapLog: Record<string, unknown>[] = [];
    collectLines(recap.child, recapLog);
    const live: Target[] = [
      { name: 'direct', url: sink.url, headers: GROWTH_HEADERS, pid: sink.child.process.pid },
      { name: 'pipe', url: pipe.url, headers: GROWTH_HEADERS, pid: pipe.child.process.pid },
    ];
    const unavailable: Unavailable[] = [];
    let portkeyVersion: string | undefined;
    try {
      const portkey = await startPortkey(sink.url);
      children.push(portkey.child);
      portkeyVersion = portkey.version;
      live.push({ name: 'portkey', url: portkey.url, headers: { ...GROWTH_HEADERS, ...portkey.headers }, pid: portkey.child.process.pid });
    } catch (err) {
      unavailable.push({ name: 'portkey', reason: (err as Error).message.split('\n')[0] ?? 'unknown' });
    }
    live.push({ name: 'recap', url: recap.url, headers: GROWTH_HEADERS, pid: recap.child.process.pid });
    return { live, unavailable, portkeyVersion, recapLog, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
