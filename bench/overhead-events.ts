// The overhead bench's events row (issue 29): what writing one event per request costs. The same
// requests go to the upstream directly, to recap as configured by default (events on: each
// request's event is queued after its response and written to Redis off the request path) and to
// recap with `events.enabled: false`, interleaved batch by batch; the model compacts but the body
// fits, so both recaps take the path of every request that needs no compaction. Goal: the
// difference of their p50 added is within noise. CPU per request says what the writes cost the
// process, which a busy machine moves much less than latency.
// Run alone: npm run bench -- overhead-events   (part of `overhead` too; needs Redis)
import { conversationBody } from './overhead-bodies.js';
import { msPerRequest, snapshot } from './overhead-cpu.js';
import { clientFor, interleaved, roundTrip, warmUp, type Client } from './overhead-latency.js';
import { benchConfigYaml, startRecapChild } from './overhead-recap.js';
import { round3, summarize } from './overhead-stats.js';
import { CLIENT_HEADERS, startScript, type Target } from './overhead-targets.js';

const SIZES = { '20KB': 20_000, '400KB': 400_000 } as const;
const PARAMS = { warmUp: 30, perTarget: 300, batch: 10, budgetMsPerSize: 40_000, seed: 7 };

export interface EventsFigures {
  body: string;
  bodyBytes: number;
  n: number;
  directP50: number;
  /** p50 over the direct upstream, events on and off. */
  onAddedP50: number;
  offAddedP50: number;
  /** on − off. */
  differenceMs: number;
  /** CPU of each recap process per request (its event writes included, which run after the response). */
  onCpuMsPerRequest?: number;
  offCpuMsPerRequest?: number;
}

export interface EventsResult {
  params: typeof PARAMS;
  sizes: EventsFigures[];
  /** recap_events_total of the recap with events on, once measured: they were written, not dropped. */
  eventsWritten: number;
  eventsDropped: number;
}

async function eventCounts(recapUrl: string): Promise<{ written: number; dropped: number }> {
  const text = await (await fetch(`${new URL(recapUrl).origin}/metrics`)).text();
  const count = (outcome: string) =>
    Number(
      text
        .split('\n')
        .find((l) => l.startsWith(`recap_events_total{outcome="${outcome}"}`))
        ?.split(' ')
        .at(-1) ?? 0,
    );
  return { written: count('written'), dropped: count('queue_full') + count('store_error') };
}

/** `recapCli`: the compiled cli.js (overhead-build.ts). */
export async function measureEvents(recapCli: string): Promise<EventsResult> {
  const upstream = await startScript('upstream', ['bench/overhead-upstream.ts']);
  const stops = [() => upstream.child.stop()];
  const clients: Client[] = [];
  try {
    const on = await startRecapChild(upstream.url, [recapCli]);
    stops.push(() => on.child.stop());
    const off = await startRecapChild(upstream.url, [recapCli], 1, { configYaml: benchConfigYaml(upstream.url, 'info', { events: false }) });
    stops.push(() => off.child.stop());
    const targets: Target[] = [
      { name: 'direct', url: upstream.url, headers: CLIENT_HEADERS },
      { name: 'recap', url: on.url, headers: CLIENT_HEADERS, pid: on.child.process.pid },
      { name: 'recap-events-off', url: off.url, headers: CLIENT_HEADERS, pid: off.child.process.pid },
    ];
    const pids = [on.child.process.pid, off.child.process.pid].filter((pid): pid is number => pid !== undefined);
    clients.push(...targets.map((t) => clientFor(t)));
    const sizes: EventsFigures[] = [];
    for (const [label, bytes] of Object.entries(SIZES)) {
      const body = conversationBody(bytes, PARAMS.seed);
      process.stdout.write(`  events on/off ${label}: ${body.length} bytes\n`);
      await warmUp(clients, body, PARAMS.warmUp);
      const action = (await roundTrip(clients[1]!, body)).headers['x-recap-action'];
      if (action !== 'none') throw new Error(`recap answered x-recap-action: ${String(action)}; the bench measures the no-compaction path`);
      const before = snapshot(pids);
      const samples = await interleaved(clients, body, roundTrip, { perTarget: PARAMS.perTarget, batch: PARAMS.batch, deadline: performance.now() + PARAMS.budgetMsPerSize });
      // The last writes of the events-on process finish after the last response.
      await new Promise((r) => setTimeout(r, 200));
      const after = snapshot(pids);
      const cpu = (t: Target) => (t.pid === undefined ? undefined : msPerRequest(before, after, t.pid, samples.get(t.name)?.length ?? 0));
      const p50 = (name: Target['name']) => summarize(samples.get(name) ?? []).p50;
      const direct = p50('direct');
      const onAdded = round3(p50('recap') - direct);
      const offAdded = round3(p50('recap-events-off') - direct);
      sizes.push({
        body: label,
        bodyBytes: body.length,
        n: samples.get('recap')?.length ?? 0,
        directP50: direct,
        onAddedP50: onAdded,
        offAddedP50: offAdded,
        differenceMs: round3(onAdded - offAdded),
        onCpuMsPerRequest: cpu(targets[1]!),
        offCpuMsPerRequest: cpu(targets[2]!),
      });
    }
    const counts = await eventCounts(on.url);
    return { params: PARAMS, sizes, eventsWritten: counts.written, eventsDropped: counts.dropped };
  } finally {
    await Promise.all(clients.map((c) => c.pool.close()));
    for (const stop of stops.reverse()) await stop();
  }
}

export function eventsRows(result: EventsResult): Record<string, string | number>[] {
  return result.sizes.map((s) => ({
    body: s.body,
    n: s.n,
    'direct p50 ms': s.directP50,
    'events on: p50 added': s.onAddedP50,
    'events off: p50 added': s.offAddedP50,
    'on − off ms': s.differenceMs,
    'CPU/request on ms': s.onCpuMsPerRequest ?? '–',
    'CPU/request off ms': s.offCpuMsPerRequest ?? '–',
  }));
}
