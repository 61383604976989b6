import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { configSchema, type Config, type ModelConfig } from './config-schema.js';
import { globMatches, isGlob } from './glob.js';

export type { Config, ModelConfig, UpstreamConfig, CompactionConfig, StoreConfig } from './config-schema.js';

/** A config that cannot be used; `problems` holds one `file: path: what is wrong` line each. */
export class ConfigError extends Error {
  readonly code = 'invalid_config';
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
  }
}

type Env = Record<string, string | undefined>;

const ENV_REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** Replaces `${VAR}` / `${VAR:-default}` in every string value; a value that ends up empty is dropped. */
function interpolate(value: unknown, env: Env, path: string, problems: string[]): unknown {
  if (typeof value === 'string') {
    const out = value.replace(ENV_REF, (_m, name: string, fallback: string | undefined) => {
      const v = env[name];
      if (v !== undefined && v !== '') return v;
      if (fallback !== undefined) return fallback;
      problems.push(`${path}: environment variable ${name} is not set`);
      return '';
    });
    return out === '' && value !== '' ? undefined : out;
  }
  if (Array.isArray(value)) return value.map((v, i) => interpolate(v, env, `${path}.${i}`, problems));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const next = interpolate(v, env, path ? `${path}.${k}` : k, problems);
      if (next !== undefined) out[k] = next;
    }
    return out;
  }
  return value;
}

function issuePath(issue: z.core.$ZodIssue): string {
  const keys = 'keys' in issue && Array.isArray(issue.keys) ? `.${issue.keys.join(',')}` : '';
  return (issue.path.length ? issue.path.join('.') : '(root)') + keys;
}

/** Checks that every name the config refers to exists. */
function crossCheck(config: Config): string[] {
  const problems: string[] = [];
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

/** Parses and validates config text; `file` only labels the error lines. */
export function parseConfig(text: string, file: string, env: Env = process.env): Config {
  let raw: unknown;
  try {
    raw = parseYaml(text, { prettyErrors: true });
  } catch (err) {
    throw new ConfigError([`${file}: (syntax): ${(err as Error).message.split('\n')[0]}`]);
  }
  const problems: string[] = [];
  const tree = interpolate(raw ?? {}, env, '', problems);
  if (env.REDIS_URL) (tree as { store?: Record<string, unknown> }).store = { ...((tree as { store?: object }).store ?? {}), url: env.REDIS_URL };
  if (env.RECAP_SECRET) (tree as { server?: Record<string, unknown> }).server = { ...((tree as { server?: object }).server ?? {}), secret: env.RECAP_SECRET };
  const result = configSchema.safeParse(tree);
  if (!result.success) {
    for (const issue of result.error.issues) problems.push(`${issuePath(issue)}: ${issue.message}`);
  } else {
    problems.push(...crossCheck(result.data));
  }
  if (problems.length) throw new ConfigError(problems.map((p) => `${file}: ${p}`));
  return result.data!;
}

export function loadConfig(file: string, env: Env = process.env): Config {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError([`${file}: (file): ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`]);
  }
  return parseConfig(text, file, env);
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
