import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// A process that logs through createLogger's stdout (batched-stdout.ts): every line reaches stdout,
// in order, however the process goes on or ends.
const LOGGER = join(import.meta.dirname, 'logger.ts');

interface Run {
  lines: Record<string, unknown>[];
  code: number | null;
}

/** Runs `body` (with `logger` in scope) in a child process; `until` ends it early once the lines so far satisfy it. */
function run(body: string, until?: (lines: Record<string, unknown>[]) => boolean): Promise<Run> {
  const script = `const { createLogger } = await import(${JSON.stringify(LOGGER)});\nconst logger = createLogger('info');\n${body}`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'ignore'] });
  const lines: Record<string, unknown>[] = [];
  let rest = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const parts = (rest + chunk.toString('utf8')).split('\n');
    rest = parts.pop() ?? '';
    for (const part of parts) lines.push(JSON.parse(part) as Record<string, unknown>);
    if (until?.(lines)) child.kill('SIGKILL');
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ lines, code })));
}

const numbers = (r: Run) => r.lines.filter((l) => l.msg === 'request').map((l) => l.n);
const LOG_200 = `for (let n = 0; n < 200; n++) logger.info({ n, route: '/v1/chat/completions' }, 'request');`;

describe('log lines on stdout', () => {
  it('writes every line, in order and whole, while the process runs on', async () => {
    const r = await run(`${LOG_200}\nsetTimeout(() => {}, 60_000);`, (lines) => lines.length >= 200);
    expect(numbers(r)).toEqual(Array.from({ length: 200 }, (_, n) => n));
    expect(r.lines[0]).toMatchObject({ level: 30, service: 'recap', route: '/v1/chat/completions', msg: 'request' });
  });

  it('writes the lines it holds when the process exits at once', async () => {
    const r = await run(`${LOG_200}\nprocess.exit(3);`);
    expect(r.code).toBe(3);
    expect(numbers(r)).toEqual(Array.from({ length: 200 }, (_, n) => n));
  });

  it('writes the lines it holds when an uncaught exception ends the process', async () => {
    const r = await run(`logger.info({ n: 0 }, 'request');\nsetTimeout(() => { throw new Error('boom'); }, 1);`);
    expect(r.code).not.toBe(0);
    expect(numbers(r)).toEqual([0]);
  });

  it('writes what it holds on flush, as serve does before exiting', async () => {
    const r = await run(`logger.info({ n: 0 }, 'request');\nlogger.flush(() => process.exit(0));`);
    expect(numbers(r)).toEqual([0]);
  });
});
