// Two builds of recap side by side on one cell of the growth table (overhead-growth.ts): the
// working tree's and a git ref's (main by default), each its own process with its own store keys,
// sent the same requests interleaved request by request. What each costs is its CPU per request
// (from /proc) and its own time (request log: total minus the upstream's); interleaving makes load
// on the machine touch both alike, so their difference holds where absolute figures do not.
// Run: npx tsx bench/overhead-ab.ts 20KB below turns [REF]   (AB_ROUNDS=3: rounds of the cell's passes, the first one warm-up;
//   AB_ROUTE=responses: the same conversation on the Responses route, overhead-growth-responses.ts)
import { execFile } from 'node:child_process';
import { mkdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildRecap, removeBuild } from './overhead-build.js';
import { msPerRequest, snapshot } from './overhead-cpu.js';
import { type GrowthLabel, type GrowthPathName, type GrowthPattern, type GrowthSetup, prepareSize } from './overhead-growth.js';
import { growthBody } from './overhead-growth-bodies.js';
import { responsesGrowthBody } from './overhead-growth-responses.js';
import { GROWTH_HEADERS, growthConfigYaml } from './overhead-growth-targets.js';
import { clientFor, roundTrip } from './overhead-latency.js';
import { REPO_ROOT } from './overhead-processes.js';
import { type RecapChild, startRecapChild } from './overhead-recap.js';
import { summarize } from './overhead-stats.js';
import { startScript } from './overhead-targets.js';

const run = promisify(execFile);
const ROUNDS = Number(process.env.AB_ROUNDS ?? 3);
const RESPONSES = process.env.AB_ROUTE === 'responses';
const bodyOf = RESPONSES ? responsesGrowthBody : growthBody;

/** `ref`'s src compiled into a temp folder; returns its cli.js. */
async function buildRef(ref: string, dir: string): Promise<string> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(join(dir, 'out'), { recursive: true });
  const archive = join(dir, 'src.tar');
  await run('git', ['archive', '-o', archive, ref, 'src', 'package.json', 'tsconfig.build.json', 'tsconfig.json'], { cwd: REPO_ROOT });
  await run('tar', ['-xf', archive, '-C', dir]);
  await symlink(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  await symlink(join(REPO_ROOT, 'node_modules'), join(dir, 'out', 'node_modules'), 'dir');
  const tsc = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  await run(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', join(dir, 'out')], { cwd: dir, timeout: 180_000 }).catch(() => undefined);
  return join(dir, 'out', 'cli.js');
}

interface Side {
  name: string;
  recap: RecapChild;
  log: Record<string, unknown>[];
}

function collect(recap: RecapChild, into: Record<string, unknown>[]): void {
  let rest = '';
  recap.child.process.stdout?.on('data', (chunk: Buffer) => {
    const lines = (rest + chunk.toString('utf8')).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) if (line.includes('"msg":"request"')) into.push(JSON.parse(line) as Record<string, unknown>);
  });
}

async function main(label: GrowthLabel, path: GrowthPathName, pattern: GrowthPattern, ref: string): Promise<void> {
  const size = prepareSize(label, path, pattern);
  const refDir = join(tmpdir(), `recap-ab-${process.pid}`);
  const [mine, theirs] = await Promise.all([buildRecap(), buildRef(ref, refDir)]);
  const sink = await startScript('sink', ['bench/overhead-sink.ts']);
  const sides: Side[] = [];
  try {
    // AB_SETUP=memory,caller,named runs the working tree's side with the in-memory store, the
    // caller's own credential, a conversation header (any of them): with REF the working tree's
    // HEAD, what the setup itself costs.
    const setup = process.env.AB_SETUP?.split(',') ?? [];
    const mineSetup: GrowthSetup = { store: setup.includes('memory') ? 'memory' : 'redis', credential: setup.includes('caller') ? 'caller' : 'client' };
    for (const [name, cli, own] of [
      [ref, theirs, { store: 'redis', credential: 'client' }],
      [setup.length ? `working tree (${setup.join(', ')})` : 'working tree', mine, mineSetup],
    ] as const) {
      const yaml = `${growthConfigYaml(sink.url, [size.model], own)}store:\n  key_prefix: recap-ab-${process.pid}-${sides.length}\n`;
      const recap = await startRecapChild(sink.url, [cli], 1, { configYaml: yaml, readStdout: true, ...(own.store === 'memory' ? { env: { REDIS_URL: undefined } } : {}) });
      const side = { name, recap, log: [] };
      collect(recap, side.log);
      sides.push(side);
    }
    const named = { ...GROWTH_HEADERS, 'x-conversation-id': `ab-${label}-${path}-${pattern}` };
    const clients = sides.map((s, i) =>
      clientFor({ name: 'recap', url: s.recap.url, headers: i === 1 && setup.includes('named') ? named : GROWTH_HEADERS }, RESPONSES ? '/responses' : undefined),
    );
    const pids = sides.map((s) => s.recap.child.process.pid!);
    let before = snapshot(pids);
    let measured = 0;
    let sent = 0;
    // What each side's client waited for a reply: recap's own time (its log) ends after work done once the reply is out.
    const roundTrips: number[][] = sides.map(() => []);
    // The cell's passes ROUNDS times (each pass a branch of the conversation again): the first
    // round warms up (V8 compiles the hot paths over the first few hundred requests).
    for (let round = 0; round < ROUNDS; round++)
      for (const pass of size.passes) {
        for (const k of pass.upTo) {
          const body = bodyOf(size.history, pass.messages.slice(0, k));
          sent++;
          for (let j = 0; j < clients.length; j++) {
            const side = (sent + j) % clients.length;
            const t = await roundTrip(clients[side]!, body);
            if (round > 0) roundTrips[side]!.push(t.ms);
          }
          if (round > 0) measured++;
        }
        if (round === 0 && pass === size.passes.at(-1)) {
          before = snapshot(pids);
          for (const s of sides) s.log.length = 0;
        }
      }
    // What the last replies left to do (events, log lines) is counted too.
    await new Promise((r) => setTimeout(r, 300));
    const after = snapshot(pids);
    await Promise.all(clients.map((c) => c.pool.close()));
    // Store reads (the record's) per side, from its metrics.
    const loads = await Promise.all(
      sides.map(async (s) => {
        const text = await (await fetch(`${new URL(s.recap.url).origin}/metrics`)).text();
        return Number(/recap_store_duration_seconds_count\{[^}]*op="load"[^}]*\} (\d+)/.exec(text)?.[1] ?? 0);
      }),
    );
    const rows = sides.map((s, i) => {
      const own = summarize(s.log.map((l) => Number(l.durationMs) - Number(l.upstreamHeadersMs ?? 0)));
      const total = summarize(s.log.map((l) => Number(l.durationMs)));
      const first = s.log.filter((l) => l.forwardedFirst !== undefined).length;
      return {
        build: s.name,
        'CPU ms/req': msPerRequest(before, after, pids[i]!, measured),
        'own p50': own.p50,
        'own p95': own.p95,
        'total p50': total.p50,
        'to forward p50': summarize(s.log.map((l) => Number(l.forwardedMs ?? 0))).p50,
        'round trip p50': summarize(roundTrips[i]!).p50,
        'forwarded first': first,
        'record reads': loads[i],
        requests: measured,
      };
    });
    process.stdout.write(`${pattern} ${label} ${path}${RESPONSES ? ' (Responses)' : ''}\n`);
    console.table(rows);
  } finally {
    await Promise.all(sides.map((s) => s.recap.child.stop()));
    await sink.child.stop();
    await removeBuild();
    await rm(refDir, { recursive: true, force: true });
  }
}

const [label = '20KB', path = 'below', pattern = 'turns', ref = 'main'] = process.argv.slice(2);
await main(label as GrowthLabel, path as GrowthPathName, pattern as GrowthPattern, ref);
