// Clean-up that must run however a test process ends: on 'exit', and on the SIGTERM with which
// vitest ends its fork workers once their files are done (a signal's default action ends the
// process without running 'exit' handlers, which left failed tests' recap processes running).

const tasks = new Set<() => void>();
let installed = false;

function runAll(): void {
  for (const task of tasks) task();
  tasks.clear();
}

/** Runs `task` when this process ends; the returned function cancels it (what it ends is gone). */
export function onTestProcessExit(task: () => void): () => void {
  if (!installed) {
    installed = true;
    process.once('exit', runAll);
    process.once('SIGTERM', () => {
      runAll();
      process.exit(143);
    });
  }
  tasks.add(task);
  return () => tasks.delete(task);
}
