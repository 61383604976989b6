import { defineConfig } from 'vitest/config';

// The tests that read a heap snapshot of their own process: in a shared worker the snapshot holds
// every module and object the files before them left, and writing it took over 30 s.
const HEAP_SNAPSHOT_TESTS = ['src/conversation/identify.test.ts', 'test/hostile/background-credentials.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Checks first that redis-server, redis-cli and a Redis at REDIS_URL are there.
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    // Vitest's run-mode default is one worker fewer than the cores: a single worker on the 2-core
    // machines here. Most test files wait on sockets, timers and child processes, so two workers
    // take the suite from ~230 s to ~145 s; more would make the timing-bound tests share a core.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: HEAP_SNAPSHOT_TESTS,
          // The files share their worker processes instead of each starting afresh: importing the
          // SDKs and the tokenizers' tables again for each of 140 files took 170 of the suite's 290 s.
          // Every file starts and stops its own servers, stores and processes (test/helpers/).
          isolate: false,
        },
      },
      { extends: true, test: { name: 'isolated', include: HEAP_SNAPSHOT_TESTS, isolate: true } },
    ],
  },
});
