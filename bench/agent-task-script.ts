import type OpenAI from 'openai';
import type { BenchMessage } from './bench-recap.js';
import { prng } from './prng.js';

// The agent-task benchmark's script, fixed by a seed: one task (one user message) worked through
// in tool steps, as a coding agent's harness drives a model. Each step is the model's reply (a
// short note and 1–3 parallel tool calls, with call ids as OpenAI writes them) and the results the
// harness gets back from running those tools (1–8 KB each: files, search hits, test runs, logs,
// all holding identifiers). The fake upstream replies with the scripted step; the harness appends
// the reply as the SDK returned it, then the results.

export type Tool = OpenAI.Chat.Completions.ChatCompletionFunctionTool;

export interface ScriptedCall {
  id: string;
  name: string;
  arguments: string;
  /** What running the tool returns (the tool message's content). */
  result: string;
}

export interface ScriptedStep {
  /** The model's note before its calls, or null (content null, as models often send). */
  note: string | null;
  calls: ScriptedCall[];
}

export const SYSTEM_PROMPT =
  'You are a coding agent working in the repository of the payments platform. Use the tools to inspect and change the code, ' +
  'run the tests before you finish, keep identifiers exact, and say what you changed and why.';

export const TASK: BenchMessage = {
  role: 'user',
  content:
    'Ticket PAY-4411: since release v4.12.3 the nightly job reconcile-settlements fails for merchant mch_82731 with ' +
    'LedgerMismatchError (batch BATCH-20931, diff 12.34 EUR). Find the cause in src/settlement/, fix it, add a regression ' +
    'test, and make `npm test -- settlement` pass. Do not change the public API of src/ledger/index.ts.',
};

/** Sent by the harness after a step in the middle of the task: a later instruction (docs/design.md rule 2). */
export const REMINDER: BenchMessage = {
  role: 'developer',
  content: 'Harness reminder: every commit message must start with PAY-4411, and run `npm test -- settlement` before you report.',
};

const FILES = [
  'src/settlement/reconcile.ts',
  'src/settlement/batch.ts',
  'src/settlement/fx-rates.ts',
  'src/settlement/report.ts',
  'src/ledger/index.ts',
  'src/ledger/posting.ts',
  'src/ledger/rounding.ts',
  'src/merchants/payouts.ts',
  'test/settlement/reconcile.test.ts',
  'test/ledger/posting.test.ts',
];
const SERVICES = ['settlement', 'ledger', 'payouts', 'fx-rates', 'webhooks'];
const LEVELS = ['info', 'warn', 'error'];
const CURRENCIES = ['EUR', 'USD', 'GBP', 'CHF'];
const PATTERNS = ['LedgerMismatchError', 'amountMinor', 'roundHalfEven', 'fxRateAt', 'BATCH-', 'mch_82731', 'settleBatch', 'postEntry'];
const ID_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export const TOOLS: Tool[] = [
  fn('read_file', 'Read a file of the repository, with line numbers.', { path: { type: 'string' } }, ['path']),
  fn('search_code', 'Search the repository for a regular expression.', { pattern: { type: 'string' }, path: { type: 'string' } }, ['pattern']),
  fn('run_command', 'Run a shell command in the repository and return its output.', { command: { type: 'string' } }, ['command']),
  fn('query_logs', 'Query the production logs of a service.', { service: { type: 'string' }, level: { type: 'string' }, since_minutes: { type: 'integer' } }, ['service']),
  fn('list_directory', 'List a directory of the repository.', { path: { type: 'string' } }, ['path']),
];

function fn(name: string, description: string, properties: Record<string, unknown>, required: string[]): Tool {
  return { type: 'function', function: { name, description, parameters: { type: 'object', properties, required, additionalProperties: false } } };
}

function toolkit(rand: () => number) {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const n = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
  const hex = (len: number) => Array.from({ length: len }, () => '0123456789abcdef'[n(0, 15)]).join('');
  const callId = () => `call_${Array.from({ length: 24 }, () => ID_CHARS[n(0, ID_CHARS.length - 1)]).join('')}`;
  return { pick, n, hex, callId };
}

type Kit = ReturnType<typeof toolkit>;

/** Lines from `line` while they fit in `bytes` (results are ASCII: one byte a character). */
function fill(bytes: number, line: (i: number) => string, header = ''): string {
  const lines = header ? [header] : [];
  let size = header.length;
  for (let i = 1; ; i++) {
    const next = line(i);
    if (size + 1 + next.length > bytes) return lines.join('\n');
    lines.push(next);
    size += next.length + 1;
  }
}

/** Results are 1–8 KB: a line is at most this long, so a result ends within it of its draw. */
const MAX_LINE = 200;

const RESULTS: Record<string, (k: Kit, args: Record<string, unknown>, bytes: number) => string> = {
  read_file: (k, args, bytes) =>
    fill(
      bytes,
      (i) => {
        const code = k.pick([
          () => `export async function settleBatch${k.n(1, 99)}(batchId = 'BATCH-${k.n(20000, 29999)}'): Promise<Settlement> {`,
          () => `  const entry = await ledger.find('LED-${k.n(100000, 999999)}');`,
          () => `  if (entry.amountMinor !== ${k.n(100, 999999)}) throw new LedgerMismatchError('mch_${k.n(10000, 99999)}', ${k.n(1, 9999)});`,
          () => `  const rate = fxRateAt('${k.pick(CURRENCIES)}/${k.pick(CURRENCIES)}', '2024-05-${String(k.n(1, 28)).padStart(2, '0')}');`,
          () => `  // PAY-${k.n(1000, 9999)}: amounts are rounded half-even since v4.${k.n(1, 12)}.${k.n(0, 9)}`,
          () => `  return roundHalfEven(total * rate, ${k.n(0, 4)});`,
          () => `}`,
          () => `import { ${k.pick(PATTERNS)} } from '../${k.pick(['ledger', 'settlement', 'merchants'])}/${k.pick(['index', 'posting', 'rounding', 'batch'])}.js';`,
        ])();
        return `${String(i).padStart(5)}  ${code}`;
      },
      `// ${String(args.path)}`,
    ),
  search_code: (k, args, bytes) =>
    fill(
      bytes,
      () =>
        `${k.pick(FILES)}:${k.n(1, 480)}:    ${k.pick(['const', 'await', 'if (', 'return'])} ${String(args.pattern)}(${k.pick(["'mch_82731'", `'BATCH-${k.n(20000, 29999)}'`, `entry.amountMinor`, `'LED-${k.n(100000, 999999)}'`])});`,
    ),
  run_command: (k, args, bytes) =>
    fill(
      bytes,
      () =>
        k.pick([
          () => `  PASS test/settlement/reconcile.test.ts > settles BATCH-${k.n(20000, 29999)} for mch_${k.n(10000, 99999)} (${k.n(2, 90)} ms)`,
          () => `  FAIL test/settlement/reconcile.test.ts > rounds ${k.pick(CURRENCIES)} amounts half-even: expected ${k.n(100, 99999)} to be ${k.n(100, 99999)}`,
          () => `     at settleBatch (src/settlement/reconcile.ts:${k.n(10, 480)}:${k.n(3, 40)})`,
          () => `     at postEntry (src/ledger/posting.ts:${k.n(10, 300)}:${k.n(3, 40)})`,
          () => `npm warn deprecated glob@${k.n(7, 8)}.${k.n(0, 9)}.${k.n(0, 9)}: commit ${k.hex(12)} of the lockfile pins it`,
        ])(),
      `$ ${String(args.command)}`,
    ),
  query_logs: (k, args, bytes) =>
    fill(bytes, () =>
      JSON.stringify({
        ts: `2024-05-${String(k.n(1, 28)).padStart(2, '0')}T${k.n(10, 23)}:${k.n(10, 59)}:${k.n(10, 59)}Z`,
        level: k.pick(LEVELS),
        service: String(args.service),
        trace_id: k.hex(32),
        msg: `ledger mismatch for mch_${k.n(10000, 99999)} batch BATCH-${k.n(20000, 29999)} diff=${k.n(1, 999)}.${k.n(10, 99)} ${k.pick(CURRENCIES)}`,
      }),
    ),
  list_directory: (k, args, bytes) =>
    fill(
      bytes,
      () =>
        `${k.pick(['-rw-r--r--', 'drwxr-xr-x'])}  ${String(k.n(120, 48000)).padStart(6)}  2024-05-${String(k.n(1, 28)).padStart(2, '0')}  ${String(args.path)}/${k.pick(['reconcile', 'batch', 'fx', 'posting', 'rounding', 'report'])}-${k.hex(6)}.ts`,
    ),
};

function callArguments(k: Kit, name: string): Record<string, unknown> {
  switch (name) {
    case 'read_file':
      return { path: k.pick(FILES) };
    case 'search_code':
      return { pattern: k.pick(PATTERNS), path: k.pick(['src/', 'src/settlement/', 'test/']) };
    case 'run_command':
      return { command: k.pick(['npm test -- settlement', 'git log --oneline -20 -- src/settlement', 'git diff v4.12.2 v4.12.3 -- src/ledger']) };
    case 'query_logs':
      return { service: k.pick(SERVICES), level: k.pick(LEVELS), since_minutes: k.n(15, 1440) };
    default:
      return { path: k.pick(['src/settlement', 'src/ledger', 'test/settlement']) };
  }
}

/** `steps` tool steps: 1 call in 60% of them, 2 in 25%, 3 in 15%; each result 1–8 KB. */
export function agentScript(seed: number, steps: number): ScriptedStep[] {
  const k = toolkit(prng(seed));
  return Array.from({ length: steps }, (_, s) => {
    const roll = k.n(1, 100);
    const count = roll <= 60 ? 1 : roll <= 85 ? 2 : 3;
    const calls = Array.from({ length: count }, () => {
      const name = k.pick(TOOLS).function.name;
      const args = callArguments(k, name);
      return { id: k.callId(), name, arguments: JSON.stringify(args), result: RESULTS[name]!(k, args, k.n(1024 + MAX_LINE, 8192)) };
    });
    const note = k.n(1, 2) === 1 ? null : `Step ${s + 1}: checking ${calls.map((c) => c.name).join(', ')} for the PAY-4411 mismatch.`;
    return { note, calls };
  });
}
