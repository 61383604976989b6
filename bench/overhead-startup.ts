// recap's startup: from spawning `recap serve` to the first `GET /readyz` 200 (store reachable).
import { buildRecap, removeBuild } from './overhead-build.js';
import { FROM_SOURCE, startRecapChild } from './overhead-recap.js';
import { median, round3 } from './overhead-stats.js';

async function startups(upstreamUrl: string, cli: string[], count: number): Promise<number[]> {
  const runs: number[] = [];
  for (let i = 0; i < count; i++) {
    const recap = await startRecapChild(upstreamUrl, cli);
    runs.push(round3(recap.startupMs));
    await recap.child.stop();
  }
  return runs;
}

/**
 * Startup of the compiled CLI (what `npm start` runs; the headline figure) and, for reference,
 * from source through tsx. `firstMs` is the bench target's own startup, the first from source.
 */
export async function measureStartup(upstreamUrl: string, firstMs: number, count: number) {
  const fromSource = await startups(upstreamUrl, FROM_SOURCE, count);
  let compiled: { runsMs: number[]; medianMs: number } | { unavailable: string };
  try {
    const runsMs = await startups(upstreamUrl, [await buildRecap()], count);
    compiled = { runsMs, medianMs: median(runsMs) };
  } catch (err) {
    compiled = { unavailable: (err as Error).message.split('\n')[0] ?? 'build failed' };
  } finally {
    await removeBuild();
  }
  const fromSourceFigures = { firstMs: round3(firstMs), runsMs: fromSource, medianMs: median(fromSource) };
  return { compiled, fromSource: fromSourceFigures, headlineMs: 'medianMs' in compiled ? compiled.medianMs : fromSourceFigures.medianMs };
}
