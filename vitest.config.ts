import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Checks first that redis-server, redis-cli and a Redis at REDIS_URL are there.
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    // Vitest's run-mode default is one worker fewer than the cores: a single worker on the 2-core
    // machines here. Most test files wait on sockets, timers and child processes, so two workers
    // take the suite from ~230 s to ~145 s; more would make the timing-bound tests share a core.
    maxWorkers: 2,
    // The files share their two worker processes instead of each starting afresh: importing the
    // SDKs and the tokenizers' tables again for each of 140 files took 170 of the suite's 290 s.
    // Every file starts and stops its own servers, stores and processes (test/helpers/).
    isolate: false,
  },
});
