import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// The CLI contract of DESIGN.md, driven as a user would: a separate process.

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..');
const cli = (args: string[], input?: string) => {
  const child = run(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli.ts'), ...args], { cwd: ROOT, env: { ...process.env, REDIS_URL: '' } });
  if (input !== undefined) {
    child.child.stdin!.end(input);
  }
  return child;
};

const body = {
  model: 'gpt-4o',
  max_tokens: 1000,
  messages: [
    { role: 'system', content: 'You are helpful.' },
    { role: 'user', content: 'Hello, how many tokens is this?' },
  ],
};

describe('recap count', () => {
  it('prints the contract JSON for a file, with the budget of the matching model', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'recap-count-'));
    const file = join(dir, 'body.json');
    await writeFile(file, JSON.stringify(body));
    const { stdout } = await cli(['count', file, '--config', 'config/recap.yaml', '--json']);
    const out = JSON.parse(stdout) as { prompt_tokens: number; budget: number; messages: { index: number; role: string; tokens: number }[] };
    expect(Object.keys(out).sort()).toEqual(['budget', 'messages', 'prompt_tokens']);
    expect(out.budget).toBe(128000 - 1000);
    expect(out.messages.map((m) => [m.index, m.role])).toEqual([
      [0, 'system'],
      [1, 'user'],
    ]);
    expect(out.prompt_tokens).toBe(out.messages.reduce((a, m) => a + m.tokens, 0) + 3);
  });

  it('reads stdin with - and prints a readable table without --json', async () => {
    const { stdout } = await cli(['count', '-', '--config', 'config/recap.yaml'], JSON.stringify(body));
    expect(stdout).toMatch(/prompt tokens: +\d+/);
    expect(stdout).toMatch(/budget: +127000/);
  });
});

describe('recap serve', () => {
  it('refuses to boot on a bad config, one line per problem', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'recap-bad-'));
    const file = join(dir, 'bad.yaml');
    await writeFile(file, 'upstreams:\n  a: { base_url: nope }\nmodels:\n  - match: x\n    upstream: a\n    context_window: 0\n    max_output_tokens: 1\n');
    const err = (await cli(['serve', '--config', file]).catch((e: unknown) => e)) as { code: number; stderr: string };
    expect(err.code).toBe(1);
    const lines = err.stderr.trim().split('\n');
    expect(lines).toEqual(expect.arrayContaining([expect.stringMatching(/bad\.yaml: upstreams\.a\.base_url: /), expect.stringMatching(/bad\.yaml: models\.0\.context_window: /)]));
  });
});
