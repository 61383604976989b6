// `npm run bench -- overhead-events`: the overhead bench's events row alone (overhead-events.ts),
// written to bench/results/overhead-events.json; `overhead` runs it too, into overhead.json.
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { buildRecap, removeBuild } from './overhead-build.js';
import { eventsRows, measureEvents } from './overhead-events.js';
import { REPO_ROOT } from './overhead-processes.js';
import { removeBenchConfig } from './overhead-recap.js';
import { round3 } from './overhead-stats.js';

const RESULTS_FILE = join(REPO_ROOT, 'bench', 'results', 'overhead-events.json');

export async function runEventsBench(): Promise<unknown> {
  const startedAt = performance.now();
  const loadBefore = loadavg().map(round3);
  const cli = await buildRecap();
  try {
    const events = await measureEvents(cli);
    const result = {
      bench: 'overhead-events',
      node: process.version,
      cpu: `${cpus().length} x ${cpus()[0]?.model ?? 'unknown'}`,
      loadavg: { before: loadBefore, after: loadavg().map(round3) },
      ...events,
      durationS: round3((performance.now() - startedAt) / 1000),
    };
    await mkdir(dirname(RESULTS_FILE), { recursive: true });
    await writeFile(RESULTS_FILE, `${JSON.stringify(result, null, 2)}\n`);
    console.table(eventsRows(events));
    process.stdout.write(`events written ${events.eventsWritten}, dropped ${events.eventsDropped}; written to ${RESULTS_FILE} in ${result.durationS} s\n`);
    return result;
  } finally {
    await removeBenchConfig();
    await removeBuild();
  }
}
