// `npm run bench -- overhead-growth`: the overhead bench's growth table alone (overhead-growth.ts),
// written to bench/results/overhead-growth.json; `overhead` runs it too, into overhead.json.
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { buildRecap, removeBuild } from './overhead-build.js';
import { type GrowthLabel, type GrowthPathName, type GrowthPattern, type GrowthSetup, measureGrowth } from './overhead-growth.js';
import { growthCurves, growthGoals, growthMarkdown, growthRows } from './overhead-growth-report.js';
import { REPO_ROOT } from './overhead-processes.js';
import { round3 } from './overhead-stats.js';

const RESULTS_FILE = join(REPO_ROOT, 'bench', 'results', 'overhead-growth.json');

export async function runGrowthBench(): Promise<unknown> {
  const startedAt = performance.now();
  const loadBefore = loadavg().map(round3);
  const cli = await buildRecap();
  try {
    // GROWTH_SIZES=400KB,2MB, GROWTH_PATHS=past and GROWTH_PATTERNS=turns pick part of the table (a
    // quicker rerun); GROWTH_STORE=memory and GROWTH_CREDENTIAL=caller run recap another way than users run it.
    const list = <T>(name: string) => process.env[name]?.split(',') as T[] | undefined;
    const setup: GrowthSetup = {
      store: process.env.GROWTH_STORE === 'memory' ? 'memory' : 'redis',
      credential: process.env.GROWTH_CREDENTIAL === 'caller' ? 'caller' : 'client',
    };
    const growth = await measureGrowth(cli, {
      labels: list<GrowthLabel>('GROWTH_SIZES'),
      paths: list<GrowthPathName>('GROWTH_PATHS'),
      patterns: list<GrowthPattern>('GROWTH_PATTERNS'),
      setup,
    });
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
    process.stdout.write(`\n${growthMarkdown([growth])}\n`);
    process.stdout.write(`written to ${RESULTS_FILE} in ${result.durationS} s\n`);
    return result;
  } finally {
    await removeBuild();
  }
}
