import { fork } from 'node:child_process';

/** One way a conversation bench keeps its conversation under budget: a recap config in plain data. */
export interface BenchVariant<Name extends string> {
  name: Name;
  label: string;
  /** How the variant is set up, stated in the results file. */
  setup: string;
  compaction: Record<string, unknown>;
  backgroundEnabled: boolean;
}

// The conversation benches run each variant in a child process of its own, hence its own event
// loop, so that the CPU one variant spends on a large request never shows up as another variant's
// "wait before forwarding". The child sends its result as one IPC message and exits 0.

export function runInChild<T>(file: string, args: readonly string[], timeoutMs: number): Promise<T> {
  return new Promise((resolve, reject) => {
    // The same loader flags (tsx) as this process, so the child can import TypeScript too.
    const child = fork(file, [...args], { execArgv: process.execArgv });
    let result: T | undefined;
    const timer = setTimeout(() => child.kill(), timeoutMs);
    child.on('message', (m) => {
      result = m as T;
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (result !== undefined && code === 0) resolve(result);
      else reject(new Error(`${file} ${args.join(' ')} exited with ${signal ?? `code ${String(code)}`} and no result`));
    });
  });
}

/** The child's side: run `work`, send its result to the parent, exit (1 with the stack on failure). */
export function answerParent<T>(work: () => Promise<T>): void {
  work()
    .then((result) => new Promise<void>((resolve, reject) => process.send!(result, (err: Error | null) => (err ? reject(err) : resolve()))))
    .then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
        process.exit(1);
      },
    );
}
