import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { configSchema } from '../config/schema.js';
import { checkDocs, configKeyPaths, githubSlug, headingAnchors, relativeLinks } from './docs-check.js';

const schema = z
  .object({
    server: z.object({ port: z.number().default(8787) }).default({ port: 8787 }),
    upstreams: z.record(z.string(), z.object({ base_url: z.string(), timeouts: z.object({ connect_ms: z.number().optional() }).optional() })),
    models: z.array(z.object({ match: z.string() })).default([]),
  })
  .strict();
const errorCodes = [{ code: 'body_too_large', status: 413 }];

const CONFIG_PAGE = [
  '# Configuration',
  '',
  '| key | default |',
  '| --- | --- |',
  '| `server.port` | `8787` |',
  '| `upstreams.<name>.base_url` | required |',
  '| `upstreams.<name>.timeouts.connect_ms` | — |',
  '| `models[].match` | required |',
].join('\n');
const ERRORS_PAGE = ['# Errors', '', '| code | HTTP status | meaning |', '| --- | --- | --- |', '| `body_too_large` | 413 | too big |'].join('\n');
const README = ['# app', '', 'See [the keys](docs/configuration.md#configuration), [errors](docs/errors.md) and [below](#usage).', '', '## Usage', ''].join('\n');

let root: string | undefined;
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

function tree(files: Record<string, string>): string {
  root = mkdtempSync(join(tmpdir(), 'recap-docs-check-'));
  mkdirSync(join(root, 'docs'));
  for (const [path, text] of Object.entries(files)) writeFileSync(join(root, path), text);
  return root;
}

const sound = { 'README.md': README, 'docs/configuration.md': CONFIG_PAGE, 'docs/errors.md': ERRORS_PAGE };

describe('checkDocs', () => {
  it('finds nothing wrong when every link resolves and every key and code is documented', () => {
    expect(checkDocs(tree(sound), { configSchema: schema, errorCodes })).toEqual([]);
  });

  it('reports a link to a file that does not exist', () => {
    const dir = tree({ ...sound, 'docs/errors.md': `${ERRORS_PAGE}\n\nSee [the guide](guide.md) and ![a chart](chart.svg).\n` });
    expect(checkDocs(dir, { configSchema: schema, errorCodes })).toEqual([
      'docs/errors.md: link guide.md: no file docs/guide.md',
      'docs/errors.md: link chart.svg: no file docs/chart.svg',
    ]);
  });

  it('reports a link to a heading the page does not have, in another page or the same one', () => {
    const dir = tree({ ...sound, 'README.md': README.replace('#configuration', '#settings').replace('(#usage)', '(#use)') });
    expect(checkDocs(dir, { configSchema: schema, errorCodes })).toEqual([
      'README.md: link docs/configuration.md#settings: no heading #settings in docs/configuration.md',
      'README.md: link #use: no heading #use in README.md',
    ]);
  });

  it('reports a repository path named as code that does not exist, placeholders aside', () => {
    const dir = tree({ ...sound, 'README.md': `${README}\nThe code is in \`src/app.ts\` and \`docs/\`; results in \`bench/results/NAME.json\`.\n` });
    expect(checkDocs(dir, { configSchema: schema, errorCodes })).toEqual(['README.md: `src/app.ts` does not exist']);
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'src/app.ts'), '');
    expect(checkDocs(dir, { configSchema: schema, errorCodes })).toEqual([]);
  });

  it('reports a config key of the schema that the configuration page does not name', () => {
    const dir = tree({ ...sound, 'docs/configuration.md': CONFIG_PAGE.replace('| `models[].match` | required |', '') });
    expect(checkDocs(dir, { configSchema: schema, errorCodes })).toEqual(['docs/configuration.md: config key `models[].match` is not documented']);
  });

  it('reports a documented key the schema does not have, parents of keys aside', () => {
    const dir = tree({ ...sound, 'docs/configuration.md': `${CONFIG_PAGE}\n| \`models\` | [] |\n| \`server.colour\` | blue |\n` });
    expect(checkDocs(dir, { configSchema: schema, errorCodes })).toEqual(['docs/configuration.md: documents `server.colour`, which the config schema does not have']);
  });

  it('reports an error code without a row, or with a row that gives another status', () => {
    const codes = [...errorCodes, { code: 'request_timeout', status: 408 }];
    expect(checkDocs(tree(sound), { configSchema: schema, errorCodes: codes })).toEqual(['docs/errors.md: error code `request_timeout` (408) has no row']);
    rmSync(root!, { recursive: true });
    const dir = tree({ ...sound, 'docs/errors.md': ERRORS_PAGE.replace('| 413 |', '| 400 |') });
    expect(checkDocs(dir, { configSchema: schema, errorCodes })).toEqual(['docs/errors.md: error code `body_too_large` (413) has no row']);
  });

  it('reports a documented error code that no error has', () => {
    const dir = tree({ ...sound, 'docs/errors.md': `${ERRORS_PAGE}\n| \`too_slow\` | 408 | gone |\n` });
    expect(checkDocs(dir, { configSchema: schema, errorCodes })).toEqual(['docs/errors.md: documents `too_slow`, which src/errors.ts does not have']);
  });

  it('reports a page of docs/ that the README does not link to', () => {
    const dir = tree({ ...sound, 'docs/cost.md': '# Cost\n' });
    expect(checkDocs(dir, { configSchema: schema, errorCodes })).toEqual(['README.md: no link to docs/cost.md (its table of contents lists every page of docs/)']);
  });

  it('reports a README longer than the front page may be', () => {
    const dir = tree({ ...sound, 'README.md': `${README}${'line\n'.repeat(10)}` });
    expect(checkDocs(dir, { configSchema: schema, errorCodes, readmeMaxLines: 14 })).toEqual(['README.md: 15 lines, more than 14: move the reference into docs/']);
    expect(checkDocs(dir, { configSchema: schema, errorCodes, readmeMaxLines: 15 })).toEqual([]);
  });

  it('reports a missing reference page', () => {
    const dir = tree({ 'README.md': '# app\n' });
    expect(checkDocs(dir, { configSchema: schema, errorCodes })).toEqual([
      'docs/configuration.md: missing (the configuration reference)',
      'docs/errors.md: missing (the error-code table)',
    ]);
  });
});

describe('githubSlug and headingAnchors', () => {
  it('slugs headings as GitHub does: lower case, punctuation but - and _ dropped, each space a -', () => {
    expect(githubSlug('Recall (`recap_recall`)')).toBe('recall-recap_recall');
    expect(githubSlug('Compaction quality on your own conversations: `recap eval`')).toBe('compaction-quality-on-your-own-conversations-recap-eval');
    expect(githubSlug('Anthropic Messages (`/v1/messages`)')).toBe('anthropic-messages-v1messages');
    expect(githubSlug('Hardening (`hardening`)')).toBe('hardening-hardening');
    expect(githubSlug('See [the guide](guide.md) — now')).toBe('see-the-guide--now');
  });

  it('numbers repeated headings and ignores headings inside code blocks', () => {
    const anchors = headingAnchors(['# Notes', '## Notes', '```sh', '# not a heading', '```', '<a id="Kept"></a>'].join('\n'));
    expect([...anchors]).toEqual(['notes', 'notes-1', 'kept']);
  });
});

describe('relativeLinks', () => {
  it('takes inline links, images and definitions, not absolute URLs nor code', () => {
    const page = [
      '[a](docs/a.md) ![b](b.png "title") [web](https://example.com) [mail](mailto:x@example.com)',
      '`[not](code.md)` and [`code` text](c.md#part)',
      '```',
      '[not](fenced.md)',
      '```',
      '[ref]: d.md',
    ].join('\n');
    expect(relativeLinks(page)).toEqual(['docs/a.md', 'b.png', 'c.md#part', 'd.md']);
  });
});

describe('configKeyPaths', () => {
  it('walks the real config schema: nested objects, records of upstreams, arrays of models and clients', () => {
    const keys = configKeyPaths(configSchema);
    expect(keys).toContain('server.port');
    expect(keys).toContain('server.conversation_header');
    expect(keys).toContain('upstreams.<name>.base_url');
    expect(keys).toContain('upstreams.<name>.timeouts.body_idle_ms');
    expect(keys).toContain('models[].compaction.clear_tool_results.min_tokens');
    expect(keys).toContain('models[].recall.max_hops');
    expect(keys).toContain('clients[].models');
    expect(keys).not.toContain('server');
    expect(keys).not.toContain('models');
  });
});
