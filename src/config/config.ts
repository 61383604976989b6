import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { coerceExpanded, type Env, type Expanded, interpolate } from './interpolate.js';
import { configSchema, type Config, type ModelConfig } from './schema.js';
import { parseRedisUrl } from './redis-url.js';
import { globMatches, isGlob } from './glob.js';
import { knownKeysAt, nearestKey } from './known-keys.js';

export type { Config, ModelConfig, UpstreamConfig, CompactionConfig, StoreConfig } from './schema.js';

/** A config that cannot be used; `problems` holds one `file: path: what is wrong` line each. */
export class ConfigError extends Error {
  readonly code = 'invalid_config';
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
  }
}

export const DEFAULT_CONFIG_FILE = 'config/recap.yaml';

function issuePath(issue: z.core.$ZodIssue): string {
  return issue.path.length ? issue.path.join('.') : '(root)';
}

/** A YAML syntax error as `(syntax): line L, column C: what is wrong`, without the excerpt the parser appends. */
function syntaxLine(err: Error & { linePos?: [{ line: number; col: number }, ...unknown[]] }): string {
  const what = err.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
  const at = err.linePos?.[0];
  return at ? `(syntax): line ${at.line}, column ${at.col}: ${what}` : `(syntax): ${what}`;
}

/** A number or a flag was wanted (or a number out of range): its text is no credential, it may be shown. */
function wantsNumberOrFlag(issue: z.core.$ZodIssue): boolean {
  if (issue.code === 'invalid_type' || issue.code === 'invalid_union') return true;
  return (issue.code === 'too_big' || issue.code === 'too_small') && (issue.origin === 'number' || issue.origin === 'int');
}

/** One line per key the schema does not know, each with the known key it is likely a typo of. */
function unknownKeyLines(issue: z.core.$ZodIssue & { code: 'unrecognized_keys' }): string[] {
  const known = knownKeysAt(configSchema, issue.path);
  const at = issue.path.length ? `${issue.path.join('.')}.` : '';
  return issue.keys.map((key) => {
    const near = nearestKey(key, known);
    return `${at}${key}: unknown key${near ? ` (did you mean ${near}?)` : known.length ? ` (known here: ${known.join(', ')})` : ''}`;
  });
}

function issueLines(issue: z.core.$ZodIssue, expanded: Expanded): string[] {
  if (issue.code === 'unrecognized_keys') return unknownKeyLines(issue);
  const from = expanded.get(issue.path.join('.'));
  // A value that came from the environment: say which reference it came from as written, and
  // what it expanded to (numbers and flags only, so that no credential is echoed).
  const shown = from === undefined ? '' : wantsNumberOrFlag(issue) ? ` (the environment gave '${from.text}' for '${from.written}')` : ` (from '${from.written}')`;
  return [`${issuePath(issue)}: ${issue.message}${shown}`];
}

/** Processes that serve one port (server.workers); `auto` is one per core this process may use. */
export function workerTotal(workers: number | 'auto'): number {
  return workers === 'auto' ? availableParallelism() : workers;
}

/** Why `workers` processes cannot run on this config, if they cannot. */
export function workersProblem(workers: number, config: Config): string | undefined {
  if (workers <= 1 || config.store.url !== undefined) return undefined;
  return `${workers} workers need a shared store: set store.url or REDIS_URL (with the in-memory store each process would keep its own records, and a conversation's turns would land on different ones)`;
}

/** Checks that every name the config refers to exists. */
function crossCheck(config: Config, env: Env): string[] {
  const problems: string[] = [];
  if (config.store.url !== undefined) {
    try {
      parseRedisUrl(config.store.url);
    } catch (err) {
      // Its message starts with `store.url:` and never echoes the URL (it may carry a password).
      const message = (err as Error).message;
      problems.push(env.REDIS_URL ? message.replace(/^store\.url:/, 'store.url (from REDIS_URL):') : message);
    }
  }
  const workers = workersProblem(workerTotal(config.server.workers), config);
  if (workers) problems.push(`server.workers: ${workers}`);
  const has = (name: string) => Object.hasOwn(config.upstreams, name);
  if (config.default_upstream && !has(config.default_upstream)) {
    problems.push(`default_upstream: no upstream named "${config.default_upstream}"`);
  }
  config.models.forEach((m, i) => {
    if (!has(m.upstream)) problems.push(`models.${i}.upstream: no upstream named "${m.upstream}"`);
    const s = m.compaction.summarizer;
    if (s?.upstream && !has(s.upstream)) {
      problems.push(`models.${i}.compaction.summarizer.upstream: no upstream named "${s.upstream}"`);
    }
    if (m.max_output_tokens >= m.context_window) {
      problems.push(`models.${i}.max_output_tokens: must be smaller than context_window`);
    }
  });
  return problems;
}

/** A `compaction:` block with a summarizer but no strategy: compaction would be off (the default), surely not what was meant. */
function summarizerWithoutStrategy(tree: unknown): string[] {
  const models = (tree as { models?: unknown }).models;
  if (!Array.isArray(models)) return [];
  return models.flatMap((m, i) => {
    const c = (m as { compaction?: Record<string, unknown> } | null)?.compaction;
    if (!c || typeof c !== 'object' || c.strategy !== undefined || c.summarizer === undefined) return [];
    return [`models.${i}.compaction.strategy: not set, so compaction is off although a summarizer is given: add strategy: summarize`];
  });
}

/** Parses and validates config text; `file` only labels the error lines. */
export function parseConfig(text: string, file: string, env: Env = process.env): Config {
  let raw: unknown;
  try {
    raw = parseYaml(text, { prettyErrors: true });
  } catch (err) {
    throw new ConfigError([`${file}: ${syntaxLine(err as Error)}`]);
  }
  const problems: string[] = [];
  const expanded: Expanded = new Map();
  const unset = new Set<string>();
  const tree = interpolate(raw ?? {}, env, '', problems, expanded, unset);
  if (env.REDIS_URL) (tree as { store?: Record<string, unknown> }).store = { ...((tree as { store?: object }).store ?? {}), url: env.REDIS_URL };
  if (env.RECAP_SECRET) (tree as { server?: Record<string, unknown> }).server = { ...((tree as { server?: object }).server ?? {}), secret: env.RECAP_SECRET };
  let result = configSchema.safeParse(tree);
  // `${VAR}` texts where a number or boolean is wanted become one; each pass converts what the
  // last one refused (a value inside a key that was itself refused shows up on a later pass).
  for (let pass = 0; pass < 8 && !result.success && coerceExpanded(tree, result.error.issues, expanded); pass++) {
    result = configSchema.safeParse(tree);
  }
  if (!result.success) {
    // A key left empty by an unset ${VAR} was reported as such: not again as missing.
    for (const issue of result.error.issues) if (!unset.has(issue.path.join('.'))) problems.push(...issueLines(issue, expanded));
  } else {
    problems.push(...summarizerWithoutStrategy(tree), ...crossCheck(result.data, env));
  }
  if (problems.length) throw new ConfigError(problems.map((p) => `${file}: ${p}`));
  return result.data!;
}

function unreadable(file: string, err: NodeJS.ErrnoException, named: boolean): string {
  const where = resolve(file);
  if (err.code === 'ENOENT') {
    const looked = named ? `no such file (${where})` : `no config file at the default path, ${where} (relative to the working directory)`;
    return `${file}: (file): ${looked}; name a config file with --config FILE or RECAP_CONFIG=FILE`;
  }
  if (err.code === 'EISDIR') return `${file}: (file): is a directory, not a config file`;
  if (err.code === 'EACCES') return `${file}: (file): permission denied (${where})`;
  return `${file}: (file): cannot be read: ${err.code ?? err.message}`;
}

export function loadConfig(file: string, env: Env = process.env, named = true): Config {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError([unreadable(file, err as NodeJS.ErrnoException, named)]);
  }
  return parseConfig(text, file, env);
}

/** The config the CLI uses: `--config FILE`, else RECAP_CONFIG, else config/recap.yaml. */
export function loadConfigFile(flag: string | undefined, env: Env = process.env): Config {
  const named = flag ?? env.RECAP_CONFIG;
  return loadConfig(named || DEFAULT_CONFIG_FILE, env, Boolean(named));
}

// Names are chosen by clients: only short ones are cached (real model names are), so that the
// cache's memory stays bounded in bytes as well as in entries (10,000 names of 2 MiB each would
// hold 20 GB); a longer name is matched again each time, in linear time (glob.ts).
const MAX_CACHED_NAMES = 10_000;
export const MAX_CACHED_NAME_CHARS = 256;

/** First model entry whose `match` (exact name or glob with `*`/`?`) fits, else undefined. */
export function createModelResolver(models: ModelConfig[]): (model: string) => ModelConfig | undefined {
  const matchers = models.map((m) => ({ m, glob: isGlob(m.match) }));
  const cache = new Map<string, ModelConfig | undefined>();
  return (model) => {
    if (cache.has(model)) return cache.get(model);
    const found = matchers.find(({ m, glob }) => (glob ? globMatches(m.match, model) : m.match === model))?.m;
    if (cache.size < MAX_CACHED_NAMES && model.length <= MAX_CACHED_NAME_CHARS) cache.set(model, found);
    return found;
  };
}

export function defaultUpstreamName(config: Config): string {
  return config.default_upstream ?? Object.keys(config.upstreams)[0]!;
}
