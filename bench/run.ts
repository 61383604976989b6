// `npm run bench [-- NAME ...]`: runs the named benchmarks (all when none is named). Each prints
// its table and writes bench/results/NAME.json.

type Bench = () => Promise<unknown>;

const BENCHES: Record<string, () => Promise<Bench>> = {
  'token-count': async () => (await import('./token-count.js')).runTokenCountBench,
  overhead: async () => (await import('./overhead.js')).runOverheadBench,
  'overhead-growth': async () => (await import('./overhead-growth-bench.js')).runGrowthBench,
  'overhead-events': async () => (await import('./overhead-events-bench.js')).runEventsBench,
  'long-conversation': async () => (await import('./long-conversation.js')).runLongConversationBench,
  'eval-example': async () => (await import('./eval-example.js')).runEvalExampleBench,
  hardening: async () => (await import('./hardening.js')).runHardeningBench,
  'agent-task': async () => (await import('./agent-task.js')).runAgentTaskBench,
  'agent-task-recall': async () => (await import('./agent-task-recall.js')).runAgentTaskRecallBench,
  'recall-room': async () => (await import('./recall-room.js')).runRecallRoomBench,
  'cache-cost': async () => (await import('./cache-cost.js')).runCacheCostBench,
  'cache-breaks': async () => (await import('./cache-breaks.js')).runCacheBreaksBench,
};

async function main(names: string[]): Promise<void> {
  const selected = names.length ? names : Object.keys(BENCHES);
  for (const name of selected) {
    const load = BENCHES[name];
    if (!load) {
      process.stderr.write(`unknown benchmark "${name}"; known: ${Object.keys(BENCHES).join(', ')}\n`);
      process.exitCode = 2;
      return;
    }
    process.stdout.write(`\n== ${name}\n`);
    await (await load())();
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
