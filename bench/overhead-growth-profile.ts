// A CPU profile of recap serving one size of the growth table (overhead-growth.ts): recap runs
// compiled, under `node --cpu-prof`, behind nothing but the sink; the size's passes are sent as the
// table sends them, and the functions that took the most of recap's CPU are printed (self time).
// Run: npx tsx bench/overhead-growth-profile.ts 2MB [below|past]   (writes bench/results/profile-<size>.cpuprofile)
import { mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildRecap, removeBuild } from './overhead-build.js';
import { type GrowthLabel, type GrowthPathName, prepareSize } from './overhead-growth.js';
import { growthBody } from './overhead-growth-bodies.js';
import { clientFor, roundTrip } from './overhead-latency.js';
import { REPO_ROOT } from './overhead-processes.js';
import { startRecapChild } from './overhead-recap.js';
import { CLIENT_HEADERS, startScript } from './overhead-targets.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface Profile {
  startTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Self time per function over the samples taken from `fromUs` (the monotonic clock, in µs) on. */
function topFunctions(profile: Profile, fromUs: number, count: number): { fn: string; ms: number; share: string }[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let total = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (at < fromUs) return;
    const frame = byId.get(id)!.callFrame;
    const where = frame.url.replace(/^.*\/(recap-bench-dist-\d+|node_modules)\//, '$1/').replace(/^recap-bench-dist-\d+\//, 'dist/');
    const key = `${frame.functionName || '(anonymous)'} ${where}:${frame.lineNumber + 1}`;
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    total += ms;
    self.set(key, (self.get(key) ?? 0) + ms);
  });
  return [...self]
    .filter(([key]) => !key.startsWith('(idle)'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([fn, ms]) => ({ fn: fn.slice(0, 110), ms: Math.round(ms), share: `${((ms / total) * 100).toFixed(1)}%` }));
}

async function main(label: GrowthLabel, path: GrowthPathName): Promise<void> {
  const size = prepareSize(label, path);
  const dir = join(tmpdir(), `recap-profile-${process.pid}`);
  await mkdir(dir, { recursive: true });
  const cli = await buildRecap();
  const sink = await startScript('sink', ['bench/overhead-sink.ts']);
  const yaml = [
    'upstreams:',
    '  sink:',
    `    base_url: ${sink.url}`,
    'models:',
    `  - match: "${size.model.match}"`,
    '    upstream: sink',
    `    context_window: ${size.model.contextWindow}`,
    `    max_output_tokens: ${size.model.maxOutputTokens}`,
    '    encoding: o200k_base',
    '    compaction: { strategy: summarize, summarizer: { model: gpt-bench-summarizer } }',
    '',
  ].join('\n');
  const recap = await startRecapChild(sink.url, ['--cpu-prof', `--cpu-prof-dir=${dir}`, cli], 1, { configYaml: yaml });
  let measuredFrom = 0;
  const client = clientFor({ name: 'recap', url: recap.url, headers: CLIENT_HEADERS });
  try {
    let requests = 0;
    for (const [p, added] of size.passes.entries()) {
      // V8 stamps samples with the monotonic clock that hrtime reads: pass 0 (boot, cold counts) is left out.

      if (p === 1) measuredFrom = Number(process.hrtime.bigint() / 1000n);
      for (let k = 1; k <= added.length; k++) {
        await roundTrip(client, growthBody(size.history, added.slice(0, k)));
        requests++;
      }
    }
    process.stdout.write(`${requests} requests of ${label}, the first ${size.passes[0]!.length} left out\n`);
  } finally {
    await client.pool.close();
    await recap.child.stop();
    await sink.child.stop();
    await removeBuild();
  }
  const [file] = (await readdir(dir)).filter((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error('recap wrote no CPU profile');
  const out = join(REPO_ROOT, 'bench', 'results', `profile-${label}.cpuprofile`);
  await rename(join(dir, file), out);
  await rm(dir, { recursive: true, force: true });
  console.table(topFunctions(JSON.parse(await readFile(out, 'utf8')) as Profile, measuredFrom, 30));
  process.stdout.write(`written to ${out}\n`);
}

await main((process.argv[2] ?? '2MB') as GrowthLabel, (process.argv[3] ?? 'below') as GrowthPathName);
