import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { posix } from 'node:path';
import type { z } from 'zod';

// The documentation's own checks (run in CI as `npm run check:docs`): every relative link in the
// front page and docs/ leads somewhere (a file that exists; a #fragment that is a heading of the
// page it names), every repository path the pages name as code exists (code moves; docs follow),
// every key of the config schema is in the configuration reference and every error code in the
// error table.

/** The pages checked: README.md, CHANGELOG.md and docs/*.md, as paths relative to the root. */
export function docPages(root: string): string[] {
  const docs = existsSync(posix.join(root, 'docs')) ? readdirSync(posix.join(root, 'docs')).filter((f) => f.endsWith('.md')) : [];
  return ['README.md', 'CHANGELOG.md', ...docs.sort().map((f) => `docs/${f}`)].filter((p) => existsSync(posix.join(root, p)));
}

/** What the reference pages must cover: the config schema's keys, recap's own error codes. */
export interface DocsCoverage {
  configSchema: z.ZodType;
  errorCodes: { code: string; status: number }[];
  configPage?: string;
  errorsPage?: string;
  /** The front page stays a front page: the reference lives in docs/. */
  readmeMaxLines?: number;
}

/** Every problem of the pages under `root`, one line each; empty when all is well. */
export function checkDocs(root: string, coverage: DocsCoverage): string[] {
  const problems: string[] = [];
  const anchorsOf = new Map<string, Set<string>>();
  const anchors = (page: string): Set<string> => {
    let found = anchorsOf.get(page);
    if (!found) {
      found = headingAnchors(readFileSync(posix.join(root, page), 'utf8'));
      anchorsOf.set(page, found);
    }
    return found;
  };
  for (const page of docPages(root)) {
    const text = readFileSync(posix.join(root, page), 'utf8');
    for (const link of relativeLinks(text)) {
      const problem = linkProblem(root, page, link, anchors);
      if (problem) problems.push(`${page}: link ${link}: ${problem}`);
    }
    for (const path of namedPaths(text)) {
      if (!existsSync(posix.join(root, path))) problems.push(`${page}: \`${path}\` does not exist`);
    }
  }
  const readme = readPage(root, 'README.md');
  if (readme !== undefined) {
    for (const page of unlinkedPages(docPages(root), relativeLinks(readme))) problems.push(`README.md: no link to ${page} (its table of contents lists every page of docs/)`);
  }
  const readmeLines = readme === undefined ? 0 : readme.replace(/\n$/, '').split('\n').length;
  const readmeMaxLines = coverage.readmeMaxLines ?? 300;
  if (readmeLines > readmeMaxLines) problems.push(`README.md: ${readmeLines} lines, more than ${readmeMaxLines}: move the reference into docs/`);
  const configPage = coverage.configPage ?? 'docs/configuration.md';
  const config = readPage(root, configPage);
  if (config === undefined) problems.push(`${configPage}: missing (the configuration reference)`);
  else {
    const keys = configKeyPaths(coverage.configSchema);
    for (const key of missingConfigKeys(keys, config)) problems.push(`${configPage}: config key \`${key}\` is not documented`);
    for (const key of unknownConfigKeys(keys, config)) problems.push(`${configPage}: documents \`${key}\`, which the config schema does not have`);
  }
  const errorsPage = coverage.errorsPage ?? 'docs/errors.md';
  const errorTable = readPage(root, errorsPage);
  if (errorTable === undefined) problems.push(`${errorsPage}: missing (the error-code table)`);
  else {
    for (const { code, status } of missingErrorCodes(coverage.errorCodes, errorTable)) problems.push(`${errorsPage}: error code \`${code}\` (${status}) has no row`);
    for (const code of unknownErrorCodes(coverage.errorCodes, errorTable)) problems.push(`${errorsPage}: documents \`${code}\`, which src/errors.ts does not have`);
  }
  return problems;
}

function readPage(root: string, page: string): string | undefined {
  const path = posix.join(root, page);
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}

/** The codes that rows of the page's table give (`` | `body_too_large` | 413 | ``) but no error has. */
export function unknownErrorCodes(codes: { code: string }[], page: string): string[] {
  const documented = page.split('\n').flatMap((line) => /^\|\s*`([a-z_]+)`\s*\|\s*\d{3}\s*\|/.exec(line)?.[1] ?? []);
  return documented.filter((doc) => !codes.some(({ code }) => code === doc));
}

/** The codes without a table row of their own that gives their status: `` | `body_too_large` | 413 | … ``. */
export function missingErrorCodes(codes: { code: string; status: number }[], page: string): { code: string; status: number }[] {
  const rows = page.split('\n').map((line) => line.split('|').map((cell) => cell.trim()));
  return codes.filter(({ code, status }) => !rows.some((cells) => cells[1] === `\`${code}\`` && cells[2] === String(status)));
}

function linkProblem(root: string, page: string, link: string, anchors: (page: string) => Set<string>): string | undefined {
  const hash = link.indexOf('#');
  const pathPart = hash === -1 ? link : link.slice(0, hash);
  const fragment = hash === -1 ? undefined : safeDecode(link.slice(hash + 1));
  const target = pathPart === '' ? page : posix.normalize(posix.join(posix.dirname(page), safeDecode(pathPart)));
  if (target.startsWith('..')) return 'leads outside the repository';
  if (!existsSync(posix.join(root, target))) return `no file ${target}`;
  if (fragment === undefined || !target.endsWith('.md')) return undefined;
  if (!anchors(target).has(fragment.toLowerCase())) return `no heading #${fragment} in ${target}`;
  return undefined;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** GitHub's heading anchor (github-slugger): lower case, punctuation but `-` and `_` removed, each space a `-`. */
export function githubSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** The anchors a page offers: its headings' slugs (a repeated one gets -1, -2, …) and explicit `id`/`name` attributes. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of outsideFences(markdown)) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const slug = githubSlug(heading[1]!);
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      anchors.add(count === 0 ? slug : `${slug}-${count}`);
    }
    for (const attribute of line.matchAll(/<a\s[^>]*(?:id|name)="([^"]+)"/g)) anchors.add(attribute[1]!.toLowerCase());
  }
  return anchors;
}

/** The docs/ pages that the front page's links (`docs/x.md`, `docs/x.md#part`) never name. */
export function unlinkedPages(pages: string[], readmeLinks: string[]): string[] {
  const linked = new Set(readmeLinks.map((link) => posix.normalize(safeDecode(link.split('#')[0]!))));
  return pages.filter((page) => page.startsWith('docs/') && !linked.has(page));
}

/** Link and image targets that are not absolute URLs (no scheme), outside code blocks and code spans. */
export function relativeLinks(markdown: string): string[] {
  const text = outsideFences(markdown)
    .join('\n')
    .replace(/(`+)[\s\S]*?[^`]\1(?!`)/g, '');
  const targets: string[] = [];
  for (const inline of text.matchAll(/\]\(\s*<?([^()\s<>]+)>?(?:\s+"[^"]*")?\s*\)/g)) targets.push(inline[1]!);
  for (const definition of text.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)) targets.push(definition[1]!);
  return targets.filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

/**
 * Paths of the repository that a page names as code, relative to its root (`src/errors.ts`,
 * `test/hostile/`), outside code blocks; placeholders in capitals (`bench/results/NAME.json`) aside.
 */
export function namedPaths(markdown: string): string[] {
  const paths = new Set<string>();
  for (const span of outsideFences(markdown)
    .join('\n')
    .matchAll(/`((?:src|test|bench|docs|config|examples)\/[\w./-]*)`/g)) {
    if (!/[A-Z]{3,}/.test(span[1]!)) paths.add(span[1]!);
  }
  return [...paths];
}

/** The page's lines outside fenced code blocks. */
function outsideFences(markdown: string): string[] {
  const lines: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined && marker) fence = marker;
    else if (fence !== undefined && marker?.startsWith(fence)) fence = undefined;
    else if (fence === undefined) lines.push(line);
  }
  return lines;
}

type Def = {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  element?: z.ZodType;
  valueType?: z.ZodType;
  in?: z.ZodType;
  options?: z.ZodType[];
};
const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional']);

/**
 * Every settable key of a config schema, as the reference names it: `server.port`,
 * `upstreams.<name>.base_url` (a record's entries), `models[].match` (an array's items).
 */
export function configKeyPaths(schema: z.ZodType, prefix = ''): string[] {
  const def = defOf(schema);
  if (WRAPPERS.has(def.type) && def.innerType) return configKeyPaths(def.innerType, prefix);
  if (def.type === 'pipe' && def.in) return configKeyPaths(def.in, prefix);
  if (def.type === 'object' && def.shape) {
    return Object.entries(def.shape).flatMap(([key, value]) => configKeyPaths(value, prefix ? `${prefix}.${key}` : key));
  }
  if (def.type === 'record' && def.valueType) return nested(def.valueType, `${prefix}.<name>`, prefix);
  if (def.type === 'array' && def.element) return nested(def.element, `${prefix}[]`, prefix);
  if (def.type === 'union' && def.options) {
    const inner = def.options.flatMap((option) => configKeyPaths(option, prefix));
    return [...new Set(inner)];
  }
  return [prefix];
}

/** A record's or array's entries: their own keys when they are objects, else the container is the key. */
function nested(entry: z.ZodType, entryPrefix: string, prefix: string): string[] {
  const inner = configKeyPaths(entry, entryPrefix);
  return inner.length === 1 && inner[0] === entryPrefix ? [prefix] : inner;
}

/**
 * The keys a reference table documents (a row whose first cell is one key as code) that are
 * neither a key of the schema nor a parent of one (`clients` for `clients[].name`).
 */
export function unknownConfigKeys(keys: string[], reference: string): string[] {
  const documented = reference.split('\n').flatMap((line) => /^\|\s*`([a-z_]+(?:\[\]|\.<name>|\.[a-z_]+)*)`\s*\|/.exec(line)?.[1] ?? []);
  return documented.filter((doc) => !keys.some((key) => key === doc || key.startsWith(`${doc}.`) || key.startsWith(`${doc}[]`)));
}

/** The keys that the reference does not name as code (`` `models[].match` ``). */
export function missingConfigKeys(keys: string[], reference: string): string[] {
  return keys.filter((key) => !reference.includes(`\`${key}\``));
}
