import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scalarOf } from './interpolate.js';
import { loadConfigFile, parseConfig } from './config.js';
import { problems, problemsOf } from './problems.case.js';

// `${VAR}` in number and boolean keys, the `file: path: problem` form of every error, and what a
// missing config file says.

const upstream = `
upstreams:
  openai:
    base_url: https://api.openai.com/v1
`;

function loadProblems(flag: string | undefined, env: Record<string, string>): string[] {
  return problemsOf(() => loadConfigFile(flag, env));
}

describe('${VAR} in number and boolean keys', () => {
  it('expands to a number where the key is a number, from the variable or its default', () => {
    const text = `server:\n  port: \${RECAP_PORT:-18787}\n  shutdown_grace_ms: \${GRACE}\n${upstream}`;
    expect(parseConfig(text, 'f', { GRACE: '2500' }).server).toMatchObject({ port: 18787, shutdown_grace_ms: 2500 });
    expect(parseConfig(text, 'f', { RECAP_PORT: '9000', GRACE: '1' }).server.port).toBe(9000);
  });

  it('expands to a boolean, and to a number inside a list and a union key', () => {
    const text = `server:\n  log_bodies: \${LOG_BODIES:-false}\n  workers: \${WORKERS:-1}\nbackground:\n  enabled: \${BG}\n${upstream}models:\n  - match: m\n    upstream: openai\n    context_window: \${WINDOW}\n    max_output_tokens: 100\n    compaction: { strategy: window, trigger_ratio: "\${TRIGGER:-0.9}" }\n`;
    const c = parseConfig(text, 'f', { BG: 'true', WINDOW: '32000' });
    expect(c.server.log_bodies).toBe(false);
    expect(c.server.workers).toBe(1);
    expect(c.background.enabled).toBe(true);
    expect(c.models[0]).toMatchObject({ context_window: 32000, compaction: { trigger_ratio: 0.9 } });
    expect(parseConfig(text, 'f', { BG: 'false', WINDOW: '1000', WORKERS: 'auto', REDIS_URL: 'redis://127.0.0.1:6379' }).server.workers).toBe('auto');
  });

  it('keeps a string key a string, digits or not', () => {
    const text = `upstreams:\n  openai:\n    base_url: https://api.openai.com/v1\n    api_key: \${KEY}\nstore:\n  key_prefix: \${PREFIX}\n`;
    const c = parseConfig(text, 'f', { KEY: '12345', PREFIX: 'true' });
    expect(c.upstreams.openai!.api_key).toBe('12345');
    expect(c.store.key_prefix).toBe('true');
  });

  it('names the key, the reference as written and the expanded text when it is not a number, or out of range', () => {
    const text = `server:\n  port: \${RECAP_PORT}\n${upstream}`;
    expect(problems(text, { RECAP_PORT: 'eighty' })).toEqual([
      expect.stringMatching(/^recap\.yaml: server\.port: .*expected number.*\(the environment gave 'eighty' for '\$\{RECAP_PORT\}'\)$/),
    ]);
    expect(problems(text, { RECAP_PORT: '70000' })).toEqual([expect.stringMatching(/^recap\.yaml: server\.port: .*\(the environment gave '70000' for '\$\{RECAP_PORT\}'\)$/)]);
  });

  it('names the reference of a refused text without echoing what it expanded to (it may be a credential)', () => {
    const text = `${upstream}clients:\n  - { name: web, key: '\${WEB_KEY}' }\n`;
    const lines = problems(text, { WEB_KEY: 'short-secret' });
    expect(lines).toEqual([expect.stringMatching(/^recap\.yaml: clients\.0\.key: must be at least 32 characters.* \(from '\$\{WEB_KEY\}'\)$/)]);
    expect(lines.join('\n')).not.toContain('short-secret');
  });

  it('names a missing variable with the reference it was in, and a `${` that is no reference', () => {
    expect(problems(`server:\n  port: "\${PORT_A}"\n${upstream}`)).toContain("recap.yaml: server.port: environment variable PORT_A is not set (in '${PORT_A}')");
    for (const written of ['${1PORT}', '${PORT:8080}', '${PORT']) {
      expect(problems(`${upstream}store:\n  key_prefix: "x-${written}"\n`)).toContain(
        `recap.yaml: store.key_prefix: '${written}' is not an environment reference: write \${NAME} or \${NAME:-default}`,
      );
    }
  });

  it('reads numbers and booleans as YAML would for plain scalars', () => {
    expect([scalarOf('42'), scalarOf('-1.5'), scalarOf('1e3'), scalarOf(' 7 '), scalarOf('true'), scalarOf('false')]).toEqual([42, -1.5, 1000, 7, true, false]);
    expect([scalarOf(''), scalarOf('12abc'), scalarOf('yes'), scalarOf('0x10')]).toEqual([undefined, undefined, undefined, undefined]);
  });
});

describe('every config error has the file: path: problem form', () => {
  it('reports a store.url that is not a Redis URL with its file and key, without echoing it', () => {
    const lines = problems(`${upstream}store:\n  url: http://user:hunter2@redis.internal:6379\n`);
    expect(lines).toEqual([expect.stringMatching(/^recap\.yaml: store\.url: expected redis:\/\//)]);
    expect(lines.join('\n')).not.toContain('hunter2');
    expect(problems(upstream, { REDIS_URL: 'http://x' })).toEqual([expect.stringMatching(/^recap\.yaml: store\.url \(from REDIS_URL\): expected redis:\/\//)]);
    expect(problems(`${upstream}store:\n  url: redis+cluster://a:1,b:99999\n`)).toEqual([expect.stringMatching(/^recap\.yaml: store\.url: cluster node "b:99999"/)]);
  });

  it('refuses several workers on the in-memory store', () => {
    expect(problems(`server:\n  workers: 2\n${upstream}`)).toEqual([
      expect.stringMatching(/^recap\.yaml: server\.workers: 2 workers need a shared store: set store\.url or REDIS_URL/),
    ]);
    expect(problems(`server:\n  workers: 2\n${upstream}`, { REDIS_URL: 'redis://127.0.0.1:6379' })).toEqual([]);
    expect(problems(`server:\n  workers: 0\n${upstream}`)).toEqual([expect.stringMatching(/^recap\.yaml: server\.workers: /)]);
  });
});

describe('a missing config file', () => {
  let dir: string;
  const cwd = process.cwd();
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'recap-noconfig-'));
    process.chdir(dir);
  });
  afterAll(async () => {
    process.chdir(cwd);
    await rm(dir, { recursive: true, force: true });
  });

  it('at the default path says where it looked and how to name one', () => {
    expect(loadProblems(undefined, {})).toEqual([
      `config/recap.yaml: (file): no config file at the default path, ${resolve(dir, 'config/recap.yaml')} (relative to the working directory); name a config file with --config FILE or RECAP_CONFIG=FILE`,
    ]);
  });

  it('named with --config or RECAP_CONFIG says which file is missing', () => {
    expect(loadProblems('nope.yaml', {})).toEqual([`nope.yaml: (file): no such file (${resolve(dir, 'nope.yaml')}); name a config file with --config FILE or RECAP_CONFIG=FILE`]);
    expect(loadProblems(undefined, { RECAP_CONFIG: 'env.yaml' })[0]).toMatch(/^env\.yaml: \(file\): no such file/);
    expect(loadProblems(dir, {})).toEqual([`${dir}: (file): is a directory, not a config file`]);
  });
});
