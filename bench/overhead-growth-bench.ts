// `npm run bench -- overhead-growth`: the overhead bench's growth table alone (overhead-growth.ts),
// written to bench/results/overhead-growth.json; `overhead` runs it too, into overhead.json.
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { buildRecap, removeBuild } from './overhead-build.js';
import { growthCurves, growthGoals, growthRows, measureGrowth, type GrowthLabel, type GrowthPathName } from './overhead-growth.js';
import { REPO_ROOT } from './overhead-processes.js';
import { round3 } from './overhead-stats.js';

const RESULTS_FILE = join(REPO_ROOT, 'bench', 'results', 'overhead-growth.json');

export async function runGrowthBench(): Promise<unknown> {
  const startedAt = performance.now();
  const loadBefore = loadavg().map(round3);
  const cli = await buildRecap();
  try {
    // GROWTH_SIZES=400KB,2MB and GROWTH_PATHS=past pick sizes and paths (a quicker rerun of part of the table).
    const labels = process.env.GROWTH_SIZES?.split(',') as GrowthLabel[] | undefined;
    const paths = process.env.GROWTH_PATHS?.split(',') as GrowthPathName[] | undefined;
    const growth = await measureGrowth(cli, labels, paths);
    const result = {
      bench: 'overhead-growth',
      node: process.version,
      cpu: `${cpus().length} x ${cpus()[0]?.model ?? 'unknown'}`,
      loadavg: { before: loadBefore, after: loadavg().map(round3) },
      ...growth,
      durationS: round3((performance.now() - startedAt) / 1000),
    };
    await mkdir(dirname(RESULTS_FILE), { recursive: true });
    await writeFile(RESULTS_FILE, `${JSON.stringify(result, null, 2)}\n`);
    console.table(growthRows(growth));
    console.table(growthGoals(growth));
    console.table(growthCurves(growth));
    process.stdout.write(`written to ${RESULTS_FILE} in ${result.durationS} s\n`);
    return result;
  } finally {
    await removeBuild();
  }
}
