import { availableParallelism } from 'node:os';
import { parseArgs, type ParseArgsConfig } from 'node:util';

// Argument handling shared by the CLI's commands: help detection, node:util's parser with its
// errors turned into usage errors, and value checks whose messages echo what the user typed.

/** A mistake on the command line: printed with a pointer to the command's --help, exit 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly command?: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Whether `-h`/`--help` appears before a `--` terminator. */
export function wantsHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** node:util's parseArgs in strict mode; its errors become UsageErrors naming the command. */
export function parseCommandArgs<O extends Options>(command: string, args: string[], options: O, allowPositionals = false) {
  try {
    return parseArgs({ args, options, allowPositionals, strict: true });
  } catch (err) {
    // node's own wording ("Unknown option '--x'", "Option '--port <value>' argument missing").
    const message = (err as Error).message.split('. To specify a positional')[0] ?? (err as Error).message;
    throw new UsageError(message, command);
  }
}

const WHOLE = /^\d+$/;

export function positiveInteger(name: string, value: string): number {
  const n = Number(value);
  if (!WHOLE.test(value) || !Number.isSafeInteger(n) || n < 1) throw new UsageError(`${name} must be a positive integer, got '${value}'`);
  return n;
}

export function portNumber(name: string, value: string): number {
  const n = Number(value);
  if (!WHOLE.test(value) || n > 65535) throw new UsageError(`${name} must be a port number from 0 to 65535, got '${value}'`);
  return n;
}

/** `N` or `auto` (one per core the process may use). */
export function workerCount(name: string, value: string | number): number {
  if (value === 'auto') return availableParallelism();
  if (typeof value === 'number') return value;
  const n = Number(value);
  if (!WHOLE.test(value) || n < 1 || n > 1024) throw new UsageError(`${name} must be a positive integer or 'auto', got '${value}'`);
  return n;
}
