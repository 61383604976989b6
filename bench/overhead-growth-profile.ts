// A CPU profile of recap serving one cell of the growth table (overhead-growth.ts): recap runs
// compiled, as the table runs it (Redis, a client's key), behind nothing but the sink; the cell's
// passes are sent as the table sends them, and the functions that took the most of recap's CPU
// are printed (self time). With --callgrind recap runs under valgrind's callgrind instead, its
// instructions counted over the measured passes only: a figure that load on the machine does not
// move, to compare two builds by.
// (--cpu-only: recap's CPU per request alone, from /proc, without a profiler; PROFILE_WARMUP=N
// passes of warm-up, 1 by default.)
// Run: npx tsx bench/overhead-growth-profile.ts 2MB [below|past|reused] [steps|turns] [--callgrind|--cpu-only]
//   (writes bench/results/profile-<size>.cpuprofile, or callgrind.out.<size>)
import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildRecap, removeBuild } from './overhead-build.js';
import { cpuNs } from './overhead-cpu.js';
import { type GrowthLabel, type GrowthPathName, type GrowthPattern, prepareSize } from './overhead-growth.js';
import { growthBody } from './overhead-growth-bodies.js';
import { GROWTH_HEADERS, growthConfigYaml } from './overhead-growth-targets.js';
import { clientFor, roundTrip } from './overhead-latency.js';
import { REPO_ROOT } from './overhead-processes.js';
import { startRecapChild } from './overhead-recap.js';
import { startScript } from './overhead-targets.js';

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

type Mode = 'cpu-prof' | 'callgrind' | 'cpu-only';

async function main(label: GrowthLabel, path: GrowthPathName, pattern: GrowthPattern, mode: Mode): Promise<void> {
  const callgrind = mode === 'callgrind';
  const size = prepareSize(label, path, pattern);
  const dir = join(tmpdir(), `recap-profile-${process.pid}`);
  await mkdir(dir, { recursive: true });
  const cli = await buildRecap();
  const sink = await startScript('sink', ['bench/overhead-sink.ts']);
  const yaml = growthConfigYaml(sink.url, [size.model], { store: 'redis', credential: 'client' });
  const outFile = join(dir, 'callgrind.out');
  const recap = callgrind
    ? await startRecapChild(sink.url, [cli], 1, {
        configYaml: yaml,
        // Instrumentation off until the measured passes (callgrind_control --instr=on): with
        // --collect-atstart=no instead, collection stayed off and nothing was counted.
        wrapper: ['valgrind', '--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${outFile}`],
        readyTimeoutMs: 300_000,
      })
    : await startRecapChild(sink.url, [...(mode === 'cpu-prof' ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : []), cli], 1, { configYaml: yaml });
  const pid = String(recap.child.process.pid);
  let measuredFrom = 0;
  let measured = 0;
  let cpuFrom: number | undefined;
  const client = clientFor({ name: 'recap', url: recap.url, headers: GROWTH_HEADERS });
  try {
    // PROFILE_WARMUP passes (a pass starts again from the history) before the measured ones: V8
    // compiles recap's hot paths over its first few hundred requests.
    const warmUp = Number(process.env.PROFILE_WARMUP ?? 1);
    const passes = [...Array.from({ length: warmUp }, (_, i) => size.passes[i % size.passes.length]!), ...size.passes.slice(1)];
    for (const [p, pass] of passes.entries()) {
      // V8 stamps samples with the monotonic clock that hrtime reads: the warm-up (boot, cold counts) is left out.
      if (p === warmUp) {
        measuredFrom = Number(process.hrtime.bigint() / 1000n);
        cpuFrom = cpuNs(recap.child.process.pid);
        if (callgrind) await promisify(execFile)('callgrind_control', ['--instr=on', pid]);
      }
      for (const k of pass.upTo) {
        await roundTrip(client, growthBody(size.history, pass.messages.slice(0, k)));
        if (p >= warmUp) measured++;
      }
    }
    // What the last reply left to do (its event, its log line) is counted too.
    await new Promise((r) => setTimeout(r, callgrind ? 3000 : 200));
    if (callgrind) await promisify(execFile)('callgrind_control', ['--instr=off', pid]);
    const cpuTo = cpuNs(recap.child.process.pid);
    const cpu = cpuFrom === undefined || cpuTo === undefined ? 'n/a' : ((cpuTo - cpuFrom) / 1e6 / measured).toFixed(3);
    process.stdout.write(`${measured} requests of ${pattern} ${label} ${path} measured, the first pass's left out; recap's CPU ${cpu} ms per request\n`);
  } finally {
    await client.pool.close();
    await recap.child.stop();
    await sink.child.stop();
    await removeBuild();
  }
  if (callgrind) {
    const out = join(REPO_ROOT, 'bench', 'results', `callgrind.out.${pattern}-${label}-${path}`);
    await rename(outFile, out);
    await rm(dir, { recursive: true, force: true });
    // With instrumentation switched on midway the header's summary stays 0: the totals line at the end counts.
    const text = await readFile(out, 'utf8');
    const ir = Math.max(...[/^summary:\s*(\d+)/m, /^totals:\s*(\d+)/m].map((re) => Number(re.exec(text)?.[1] ?? 0)));
    process.stdout.write(`instructions: ${ir.toLocaleString('en-US')} in all, ${Math.round(ir / measured).toLocaleString('en-US')} per request\nwritten to ${out}\n`);
    return;
  }
  if (mode === 'cpu-only') return;
  const [file] = (await readdir(dir)).filter((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error('recap wrote no CPU profile');
  const out = join(REPO_ROOT, 'bench', 'results', `profile-${pattern}-${label}-${path}.cpuprofile`);
  await rename(join(dir, file), out);
  await rm(dir, { recursive: true, force: true });
  console.table(topFunctions(JSON.parse(await readFile(out, 'utf8')) as Profile, measuredFrom, 30));
  process.stdout.write(`written to ${out}\n`);
}

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const mode: Mode = process.argv.includes('--callgrind') ? 'callgrind' : process.argv.includes('--cpu-only') ? 'cpu-only' : 'cpu-prof';
await main((args[0] ?? '2MB') as GrowthLabel, (args[1] ?? 'below') as GrowthPathName, (args[2] ?? 'steps') as GrowthPattern, mode);
