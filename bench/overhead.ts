// How much latency, throughput and time to first byte recap costs on top of the upstream, next
// to a bare byte pipe (the floor) and Portkey's gateway, when it has nothing to compact.
// Run: npm run bench -- overhead   (about 3 minutes on 2 cores; needs Redis, REDIS_URL or :6379)
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { conversationBody, responsesBody } from './overhead-bodies.js';
import { buildRecap, removeBuild } from './overhead-build.js';
import { eventsRows, measureEvents } from './overhead-events.js';
import { measureGrowth } from './overhead-growth.js';
import { growthCurves, growthGoals, growthMarkdown, growthRows } from './overhead-growth-report.js';
import { msPerRequest, snapshot, type CpuSnapshot } from './overhead-cpu.js';
import { probeEventLoop } from './overhead-event-loop.js';
import { clientFor, firstByte, interleaved, roundTrip, warmUp, type Client } from './overhead-latency.js';
import { REPO_ROOT } from './overhead-processes.js';
import { redisUrl, removeBenchConfig } from './overhead-recap.js';
import { acceptance, sizeFigures, tableRows, type SizeFigures, type SizeLabel } from './overhead-report.js';
import { median, round3 } from './overhead-stats.js';
import { measureStartup } from './overhead-startup.js';
import { measureThroughput, warmThroughput } from './overhead-throughput.js';
import { startTargets, type TargetName, type Targets } from './overhead-targets.js';

const RESULTS_FILE = join(REPO_ROOT, 'bench', 'results', 'overhead.json');

const SIZES: Record<SizeLabel, number> = { '20KB': 20_000, '400KB': 400_000 };
const CONVERSATION_SEED = 7;
const PARAMS = {
  warmUpPerTarget: 30,
  latencyPerTarget: 300,
  ttfbPerTarget: 300,
  batch: 10,
  coldBodies: 15,
  concurrency: 32,
  throughputSeconds: 2.5,
  throughputRounds: 2,
  loopProbes: 3,
  // ~100k o200k tokens of the bench's prose (about 5.3 bytes per token).
  loopBodyBytes: 530_000,
  startupRuns: 3,
};
// Per size: a phase that runs out of time keeps the samples it has (each phase's `n` says how many).
const LATENCY_BUDGET_MS = 40_000;
const TTFB_BUDGET_MS = 30_000;
const COLD_BUDGET_MS = 20_000;

/** recap on conversations it has never seen, each also sent to the upstream directly. */
async function coldRecap(direct: Client, recap: Client, bytes: number): Promise<SizeFigures['recapCold']> {
  const deadline = performance.now() + COLD_BUDGET_MS;
  const viaRecap: number[] = [];
  const viaDirect: number[] = [];
  for (let i = 0; i < PARAMS.coldBodies && performance.now() < deadline; i++) {
    const body = conversationBody(bytes, 10_000 + i);
    viaDirect.push((await roundTrip(direct, body)).ms);
    viaRecap.push((await roundTrip(recap, body)).ms);
  }
  const p50 = median(viaRecap);
  const directP50 = median(viaDirect);
  return { n: viaRecap.length, p50, directP50, addedP50: round3(p50 - directP50) };
}

/** Each proxy's CPU per request it served; the upstream's (row `direct`) per request of any target. */
function cpuPerRequest(targets: Targets, before: CpuSnapshot, after: CpuSnapshot, served: Map<TargetName, number[]>): Map<TargetName, number | undefined> {
  const all = [...served.values()].reduce((n, xs) => n + xs.length, 0);
  return new Map(
    targets.live.map((t) => {
      const requests = t.name === 'direct' ? all : (served.get(t.name)?.length ?? 0);
      return [t.name, t.pid === undefined ? undefined : msPerRequest(before, after, t.pid, requests)];
    }),
  );
}

async function measureSize(targets: Targets, clients: Client[], label: SizeLabel): Promise<SizeFigures> {
  const body = conversationBody(SIZES[label], CONVERSATION_SEED);
  const streamed = conversationBody(SIZES[label], CONVERSATION_SEED, true);
  process.stdout.write(`  ${label}: ${body.length} bytes, ${clients.length} targets\n`);
  await warmUp(clients, body, PARAMS.warmUpPerTarget);
  const recap = clients.find((c) => c.target.name === 'recap')!;
  const action = (await roundTrip(recap, body)).headers['x-recap-action'];
  if (action !== 'none') throw new Error(`recap answered x-recap-action: ${String(action)}; the bench measures the no-compaction path`);

  const pids = targets.live.flatMap((t) => (t.pid === undefined ? [] : [t.pid]));
  const cpuBefore = snapshot(pids);
  const latency = await interleaved(clients, body, roundTrip, {
    perTarget: PARAMS.latencyPerTarget,
    batch: PARAMS.batch,
    deadline: performance.now() + LATENCY_BUDGET_MS,
  });
  const cpu = cpuPerRequest(targets, cpuBefore, snapshot(pids), latency);
  await warmUp(clients, streamed, 5);
  const ttfb = await interleaved(clients, streamed, firstByte, {
    perTarget: PARAMS.ttfbPerTarget,
    batch: PARAMS.batch,
    deadline: performance.now() + TTFB_BUDGET_MS,
  });
  const rated = [...targets.live, ...targets.throughputOnly];
  await warmThroughput(rated, body, PARAMS.concurrency, 1);
  const throughput = await measureThroughput(rated, body, PARAMS.concurrency, PARAMS.throughputSeconds, PARAMS.throughputRounds);
  const figures = sizeFigures(body.length, latency, ttfb, throughput, cpu);
  figures.throughputOnly = Object.fromEntries(targets.throughputOnly.map((t) => [t.name, throughput.get(t.name)]));
  figures.recapCold = await coldRecap(clients[0]!, recap, SIZES[label]);
  return figures;
}

/**
 * The Responses API route (POST /v1/responses, stateless `input`): latency and TTFB at 20 KB
 * against the upstream directly, the pipe and recap (Portkey is left out: its Responses support
 * is a different code path of its own).
 */
async function measureResponses(targets: Targets): Promise<SizeFigures> {
  const clients = targets.live.filter((t) => t.name !== 'portkey').map((t) => clientFor(t, '/responses'));
  try {
    const body = responsesBody(SIZES['20KB'], CONVERSATION_SEED);
    const streamed = responsesBody(SIZES['20KB'], CONVERSATION_SEED, true);
    process.stdout.write(`  responses 20KB: ${body.length} bytes, ${clients.length} targets\n`);
    await warmUp(clients, body, PARAMS.warmUpPerTarget);
    const recap = clients.find((c) => c.target.name === 'recap')!;
    const action = (await roundTrip(recap, body)).headers['x-recap-action'];
    if (action !== 'none') throw new Error(`recap answered x-recap-action: ${String(action)} on /v1/responses; the bench measures the no-compaction path`);
    const latency = await interleaved(clients, body, roundTrip, { perTarget: PARAMS.latencyPerTarget, batch: PARAMS.batch, deadline: performance.now() + LATENCY_BUDGET_MS });
    await warmUp(clients, streamed, 5);
    const ttfb = await interleaved(clients, streamed, firstByte, { perTarget: PARAMS.ttfbPerTarget, batch: PARAMS.batch, deadline: performance.now() + TTFB_BUDGET_MS });
    return sizeFigures(body.length, latency, ttfb, new Map(), new Map());
  } finally {
    await Promise.all(clients.map((c) => c.pool.close()));
  }
}

export async function runOverheadBench(): Promise<unknown> {
  const startedAt = performance.now();
  const loadBefore = loadavg().map(round3);
  // The compiled CLI, as `npm start` runs it: tsx would add its loader and source maps to every figure.
  const cli = await buildRecap();
  const targets = await startTargets([cli]);
  const clients = targets.live.map((t) => clientFor(t));
  try {
    const sizes = {} as Record<SizeLabel, SizeFigures>;
    for (const label of Object.keys(SIZES) as SizeLabel[]) sizes[label] = await measureSize(targets, clients, label);
    const responses = await measureResponses(targets);

    process.stdout.write('  event loop while counting a fresh message, startup\n');
    // The first message also runs recap's request path for the first time in this process: V8
    // compiles it then, on the machine's other core too. It is reported apart (`firstProbe`); the
    // figure is the worst of the messages after it, each as new to recap as the first.
    const [firstProbe, ...probes] = await probeEventLoop(targets.upstreamUrl, PARAMS.loopBodyBytes, PARAMS.loopProbes + 1, 50_000);
    const worst = (pick: (p: (typeof probes)[number]) => number) => Math.max(...probes.map(pick));
    const loop = {
      p99Ms: worst((p) => p.p99Ms),
      maxMs: worst((p) => p.maxMs),
      idleP99Ms: worst((p) => p.idleP99Ms),
      idleMaxMs: worst((p) => p.idleMaxMs),
      probes,
      firstProbe,
    };
    const startup = await measureStartup(targets.upstreamUrl, cli, targets.recapStartupMs, PARAMS.startupRuns);
    // The growth table runs on targets of its own (a sink upstream): these are stopped first.
    await Promise.all(clients.map((c) => c.pool.close()));
    await targets.stop();
    const growth = await measureGrowth(cli);
    const events = await measureEvents(cli);

    const checks = acceptance(sizes, loop, startup.headlineMs);
    const result = {
      bench: 'overhead',
      node: process.version,
      cpu: `${cpus().length} x ${cpus()[0]?.model ?? 'unknown'}`,
      loadavg: { before: loadBefore, after: loadavg().map(round3) },
      redis: redisUrl().replace(/\/\/[^@]*@/, '//'),
      portkey: targets.portkeyVersion ? { available: true, version: targets.portkeyVersion } : { available: false, reason: targets.unavailable[0]?.reason },
      params: PARAMS,
      notes: [
        'latencies in ms; "added" = target minus the direct upstream at the same percentile',
        'recap runs as the shipped config does: the Redis store, events on (one event per request, written to Redis in batches after the responses)',
        'rps = 2xx replies per second at concurrency 32 (autocannon, rounds interleaved across targets)',
        'recap-2w = recap serve --workers 2 (one primary, two workers on one port), measured for throughput only; on 2 cores its workers share them with the upstream and the load generator',
        'cpuMsPerRequest = CPU of the target process per request at concurrency 1 (/proc schedstat); for direct, the upstream per request of any target',
        "Portkey's stream transform sleeps 25 ms before its first chunk, which is most of its TTFB figure",
        'the machine is shared: loadavg tells how busy it was; compare targets within one run, not across runs',
      ],
      sizes,
      responses,
      eventLoop: loop,
      startup,
      growth,
      events,
      acceptance: checks,
      durationS: round3((performance.now() - startedAt) / 1000),
    };
    await mkdir(dirname(RESULTS_FILE), { recursive: true });
    await writeFile(RESULTS_FILE, `${JSON.stringify(result, null, 2)}\n`);

    console.table(tableRows(sizes, targets.unavailable));
    console.table(tableRows({ 'responses 20KB': responses }, []));
    console.table([
      {
        'event-loop p99 ms': loop.p99Ms,
        'event-loop max ms': loop.maxMs,
        'idle loop p99 ms': loop.idleP99Ms,
        'first message p99 ms': firstProbe?.p99Ms,
        'startup ms (compiled)': startup.compiled.medianMs,
        'startup ms (tsx)': startup.fromSource.medianMs,
      },
    ]);
    console.table(growthRows(growth));
    console.table(growthGoals(growth));
    console.table(growthCurves(growth));
    process.stdout.write(`\n${growthMarkdown([growth])}\n`);
    console.table(eventsRows(events));
    console.table(checks);
    process.stdout.write(`written to ${RESULTS_FILE} in ${result.durationS} s\n`);
    return result;
  } finally {
    // The parts that measured with these pools may have closed them already (undici throws on a second close).
    await Promise.all(clients.map((c) => (c.pool.destroyed || c.pool.closed ? undefined : c.pool.close())));
    await targets.stop();
    await removeBenchConfig();
    await removeBuild();
  }
}
