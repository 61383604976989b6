// `npm run bench -- hardening`: how long a concurrent `GET /healthz` waits while recap handles one
// big body (issue 18: no body may stall the event loop; target under 100 ms). recap runs compiled,
// as `npm start` runs it, in its own process (in-memory store); the fake upstream in another. The
// bench sends each body once as a warm-up and then RUNS times, polling /healthz back to back
// (one at a time) from the request's start to its reply, and reads the longest the recap process's
// event loop was held meanwhile (its /metrics: prom-client's monitorEventLoopDelay, reset at each
// scrape; test/hostile/memory.test.ts checks a loose bound on it). It also times JSON.parse of each
// body in this process: that one call cannot be sliced, so recap parses bodies from 1 MiB in slices.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { parallelCallsBody, pastedLogBody, toolStepsBody, wideObjectBody } from './hardening-bodies.js';
import { buildRecap, removeBuild } from './overhead-build.js';
import { type Child, freePort, printedUrl, spawnNode, waitForStatus } from './overhead-processes.js';
import { round3, summarize } from './overhead-stats.js';

const RESULTS_FILE = join(dirname(fileURLToPath(import.meta.url)), 'results', 'hardening.json');
const CONFIG_FILE = join(tmpdir(), `recap-bench-hardening-${process.pid}.yaml`);
const RUNS = 3;
const MB = 1e6;

const CONFIG = (upstream: string) =>
  [
    'server: { log_level: warn, secret: recap-hardening-bench-secret }',
    'background: { enabled: false }',
    'upstreams:',
    `  fake: { base_url: "${upstream}" }`,
    'models:',
    '  - { match: bench-plain, upstream: fake, context_window: 1000000, max_output_tokens: 4096 }',
    '  - match: bench-compact',
    '    upstream: fake',
    '    context_window: 128000',
    '    max_output_tokens: 4096',
    '    compaction: { strategy: summarize, summarizer: { model: bench-summarizer } }',
    '',
  ].join('\n');

interface Kind {
  name: string;
  body: () => string;
}

const KINDS: Kind[] = [
  { name: 'pasted log 3.7 MB, compacted', body: () => pastedLogBody('bench-compact', 3.7 * MB) },
  { name: 'pasted log 15 MB, compacted', body: () => pastedLogBody('bench-compact', 15 * MB) },
  { name: 'pasted log 15 MB, CRLF line ends, compacted', body: () => pastedLogBody('bench-compact', 15 * MB, '\r\n') },
  { name: 'pasted log 15 MB on one line, compacted', body: () => pastedLogBody('bench-compact', 15 * MB, ' ') },
  { name: '200k parallel tool calls (15 MB), compacted', body: () => parallelCallsBody('bench-compact', 200_000) },
  { name: '60k tool steps (14 MB), compacted', body: () => toolStepsBody('bench-compact', 60_000) },
  { name: '300k-key object in a part, not compacted', body: () => wideObjectBody('bench-plain', 300_000) },
  { name: '300k-key object in a part, compacting model', body: () => wideObjectBody('bench-compact', 300_000) },
];

export interface HardeningRow {
  body: string;
  mb: number;
  action: string;
  requestMs: number;
  healthzN: number;
  healthzP50: number;
  healthzP99: number;
  healthzMax: number;
  /** The recap process's longest event-loop delay during the runs. */
  loopMaxMs: number;
  jsonParseMs: number;
}

/** The longest the recap process's event loop was held since the previous scrape, in ms. */
async function loopHeldMs(origin: string): Promise<number> {
  const res = await request(`${origin}/metrics`);
  const text = await res.body.text();
  return round3(1000 * Number(/^recap_nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(text)?.[1] ?? Number.NaN));
}

async function healthz(origin: string): Promise<number> {
  const start = performance.now();
  const res = await request(`${origin}/healthz`, { headersTimeout: 60_000, bodyTimeout: 60_000 });
  await res.body.dump();
  return performance.now() - start;
}

/** Sends `body`, polling /healthz until the reply is in; the poll latencies and the reply. */
async function probe(origin: string, body: string): Promise<{ latencies: number[]; requestMs: number; action: string }> {
  const latencies: number[] = [];
  let done = false;
  const poller = (async () => {
    while (!done) latencies.push(await healthz(origin));
  })();
  const start = performance.now();
  const res = await request(`${origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench', 'x-conversation-id': `bench-${Math.random()}` },
    body,
    headersTimeout: 300_000,
    bodyTimeout: 300_000,
  });
  await res.body.dump();
  const requestMs = performance.now() - start;
  done = true;
  await poller;
  if (res.statusCode !== 200) throw new Error(`hardening bench: HTTP ${res.statusCode}`);
  return { latencies, requestMs, action: String(res.headers['x-recap-action']) };
}

function parseMs(body: string): number {
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const start = performance.now();
    JSON.parse(body);
    times.push(performance.now() - start);
  }
  return round3(Math.min(...times));
}

export async function runHardeningBench(): Promise<HardeningRow[]> {
  const cli = await buildRecap();
  const children: Child[] = [];
  try {
    const upstream = spawnNode('fake upstream', ['--import', 'tsx', 'bench/hardening-upstream.ts'], { readStdout: true });
    children.push(upstream);
    await writeFile(CONFIG_FILE, CONFIG(await printedUrl(upstream, 20_000)));
    const port = await freePort();
    const recap = spawnNode('recap', [cli, 'serve', '--config', CONFIG_FILE, '--port', String(port)], { env: { REDIS_URL: undefined } });
    children.push(recap);
    const origin = `http://127.0.0.1:${port}`;
    await waitForStatus(`${origin}/readyz`, 200, 20_000, recap);

    const rows: HardeningRow[] = [];
    for (const kind of KINDS) {
      const body = kind.body();
      await probe(origin, body);
      const latencies: number[] = [];
      let requestMs = 0;
      let loopMaxMs = 0;
      let action = '';
      for (let run = 0; run < RUNS; run++) {
        await loopHeldMs(origin);
        const p = await probe(origin, body);
        loopMaxMs = Math.max(loopMaxMs, await loopHeldMs(origin));
        latencies.push(...p.latencies);
        requestMs = Math.max(requestMs, p.requestMs);
        action = p.action;
      }
      const s = summarize(latencies);
      const row = {
        body: kind.name,
        mb: round3(Buffer.byteLength(body) / MB),
        action,
        requestMs: round3(requestMs),
        healthzN: s.n,
        healthzP50: s.p50,
        healthzP99: s.p99,
        healthzMax: s.max,
        loopMaxMs,
        jsonParseMs: parseMs(body),
      };
      rows.push(row);
      process.stdout.write(`${JSON.stringify(row)}\n`);
    }
    const idle: number[] = [];
    await loopHeldMs(origin);
    for (let i = 0; i < 200; i++) idle.push(await healthz(origin));
    const s = summarize(idle);
    const loopMaxMs = await loopHeldMs(origin);
    rows.push({ body: 'idle (no request)', mb: 0, action: '-', requestMs: 0, healthzN: s.n, healthzP50: s.p50, healthzP99: s.p99, healthzMax: s.max, loopMaxMs, jsonParseMs: 0 });

    await mkdir(dirname(RESULTS_FILE), { recursive: true });
    await writeFile(RESULTS_FILE, `${JSON.stringify({ runs: RUNS, rows }, null, 2)}\n`);
    console.table(rows);
    return rows;
  } finally {
    for (const child of children.reverse()) await child.stop();
    await rm(CONFIG_FILE, { force: true });
    await removeBuild();
  }
}
