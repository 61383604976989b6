import type { z } from 'zod';

// `${VAR}` and `${VAR:-default}` in config values. Interpolation yields strings; a key whose
// schema wants a number or a boolean gets the expanded text converted (`server.port:
// ${RECAP_PORT:-18787}` is the number 18787), while a string key keeps its text as it is, digits
// or not (an api_key of "123" stays a string).

export type Env = Record<string, string | undefined>;

/** Path (`a.b.0.c`) → a value with `${...}` references: as written in the file, and what it expanded to. */
export type Expanded = Map<string, { written: string; text: string }>;

const ENV_REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;
// A `${` that starts no reference of that form: `${1X}`, `${A-B}`, `${VAR:default}`, `${VAR` unclosed.
const NOT_A_REF = /\$\{(?![A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\})[^}\s]{0,40}\}?/;

/** Replaces references in every string value; a value that ends up empty is dropped (and its path put in `unset` when a variable was missing). */
export function interpolate(value: unknown, env: Env, path: string, problems: string[], expanded: Expanded, unset = new Set<string>()): unknown {
  if (typeof value === 'string') {
    const bad = NOT_A_REF.exec(value);
    if (bad) problems.push(`${path}: '${bad[0]}' is not an environment reference: write \${NAME} or \${NAME:-default}`);
    let referenced = false;
    const out = value.replace(ENV_REF, (ref, name: string, fallback: string | undefined) => {
      referenced = true;
      const v = env[name];
      if (v !== undefined && v !== '') return v;
      if (fallback !== undefined) return fallback;
      problems.push(`${path}: environment variable ${name} is not set (in '${ref}')`);
      unset.add(path);
      return '';
    });
    if (out === '' && value !== '') return undefined;
    if (referenced) expanded.set(path, { written: value, text: out });
    return out;
  }
  if (Array.isArray(value)) return value.map((v, i) => interpolate(v, env, `${path}.${i}`, problems, expanded, unset));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const next = interpolate(v, env, path ? `${path}.${k}` : k, problems, expanded, unset);
      if (next !== undefined) out[k] = next;
    }
    return out;
  }
  return value;
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** The number or boolean an expanded text stands for, if it is one. */
export function scalarOf(text: string): number | boolean | undefined {
  const t = text.trim();
  if (t === 'true') return true;
  if (t === 'false') return false;
  return NUMBER.test(t) ? Number(t) : undefined;
}

function wantsScalar(issue: z.core.$ZodIssue): boolean {
  if (issue.code === 'invalid_type') return issue.expected === 'number' || issue.expected === 'boolean';
  // A key that takes a word or a number (`workers: auto | N`).
  return issue.code === 'invalid_union';
}

function setAt(tree: unknown, path: PropertyKey[], value: unknown): void {
  let node = tree as Record<PropertyKey, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<PropertyKey, unknown>;
  node[path.at(-1)!] = value;
}

/**
 * Converts, in place, the expanded values that validation refused as strings where a number or
 * a boolean was wanted; whether any changed (then the tree is worth validating again).
 */
export function coerceExpanded(tree: unknown, issues: readonly z.core.$ZodIssue[], expanded: Expanded): boolean {
  let changed = false;
  for (const issue of issues) {
    const text = expanded.get(issue.path.join('.'))?.text;
    if (text === undefined || !wantsScalar(issue)) continue;
    const scalar = scalarOf(text);
    if (scalar === undefined) continue;
    setAt(tree, issue.path, scalar);
    changed = true;
  }
  return changed;
}
