// recap's startup: from spawning `recap serve` to the first `GET /readyz` 200 (store reachable).
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
 * from source through tsx. `firstMs` is the bench target's own startup (compiled).
 */
export async function measureStartup(upstreamUrl: string, compiledCli: string, firstMs: number, count: number) {
  const runsMs = await startups(upstreamUrl, [compiledCli], count);
  const fromSource = await startups(upstreamUrl, FROM_SOURCE, count);
  return {
    compiled: { firstMs: round3(firstMs), runsMs, medianMs: median(runsMs) },
    fromSource: { runsMs: fromSource, medianMs: median(fromSource) },
    headlineMs: median(runsMs),
  };
}
