// The growth table as markdown from one or more results files of the same build (overhead-growth-report.ts).
// Run: npx tsx bench/overhead-growth-table.ts bench/results/overhead-growth.json [more.json ...]
import { readFile } from 'node:fs/promises';
import type { GrowthResult } from './overhead-growth.js';
import { growthMarkdown } from './overhead-growth-report.js';

const files = process.argv.slice(2);
if (files.length === 0) throw new Error('usage: overhead-growth-table.ts RESULTS.json [RESULTS.json ...]');
// A results file of `npm run bench -- overhead` holds the growth table under `growth`.
const runs = await Promise.all(files.map(async (f) => JSON.parse(await readFile(f, 'utf8')) as GrowthResult | { growth: GrowthResult }));
process.stdout.write(growthMarkdown(runs.map((r) => ('growth' in r ? r.growth : r))));
