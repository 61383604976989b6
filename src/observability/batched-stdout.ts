import { pino } from 'pino';

// recap's log lines on stdout, written in batches: the lines of LOG_FLUSH_MS (or BATCH_MAX_BYTES)
// leave in one write. A write per line cost each request a write(2) to the pipe or file behind
// stdout (and, written asynchronously, a round trip through libuv's thread pool), about 0.1–0.2 ms
// of CPU per request at 20 KB, more than serializing the line. A batch is written synchronously, as
// Node writes stdout to a pipe or a file on Linux: an asynchronous one still in the thread pool when
// the process exits would land after the lines the exit writes. Every line is written, in order;
// whatever is held when the process exits (process.exit, an uncaught exception, a signal handler
// exiting) is written then.

export const LOG_FLUSH_MS = 50;
const BATCH_MAX_BYTES = 16 * 1024;

export interface BatchedStdout {
  write(line: string): void;
  /** Hands what is held to the writer now; `cb` once it is handed over. */
  flush(cb?: (err?: Error) => void): void;
  /** Writes what is held, synchronously. */
  flushSync(): void;
}

function createBatchedStdout(): BatchedStdout {
  const out = pino.destination({ dest: 1, sync: true });
  let held = '';
  let timer: NodeJS.Timeout | undefined;
  const release = () => {
    clearTimeout(timer);
    timer = undefined;
    if (held === '') return;
    const lines = held;
    held = '';
    out.write(lines);
  };
  const stdout: BatchedStdout = {
    write(line) {
      held += line;
      if (held.length >= BATCH_MAX_BYTES) release();
      else if (timer === undefined) {
        timer = setTimeout(release, LOG_FLUSH_MS);
        // Held lines never keep the process alive: exiting writes them.
        timer.unref();
      }
    },
    flush(cb) {
      release();
      out.flush(cb);
    },
    flushSync() {
      release();
      out.flushSync();
    },
  };
  process.once('exit', () => {
    try {
      stdout.flushSync();
    } catch {
      // stdout is gone (closed pipe): nothing left to write to
    }
  });
  return stdout;
}

let shared: BatchedStdout | undefined;

/** The process's one batched stdout, shared by every logger that writes there. */
export function batchedStdout(): BatchedStdout {
  shared ??= createBatchedStdout();
  return shared;
}
