import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI } from './helpers/cli-build.js';
import { type Harness, startHarness } from './helpers/harness.js';
import { freePorts } from './helpers/redis-process.js';

// The CLI contract (docs/cli.md), driven as a user would: a separate process.

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..');
const cli = (args: string[], input?: string, opts: { cwd?: string; env?: Record<string, string> } = {}) => {
  const child = run(process.execPath, [CLI, ...args], {
    cwd: opts.cwd ?? ROOT,
    env: { ...process.env, REDIS_URL: '', RECAP_CONFIG: '', PORT: '', ...opts.env },
  });
  if (input !== undefined) {
    child.child.stdin!.end(input);
  }
  return child;
};

interface Failure {
  code: number;
  stdout: string;
  stderr: string;
}
const failure = (p: Promise<unknown>) => p.then(() => expect.unreachable('the command succeeded')).catch((e: unknown) => e as Failure);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'recap-cli-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

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
    const file = join(dir, 'body.json');
    await writeFile(file, JSON.stringify(body));
    const { stdout } = await cli(['count', file, '--config', 'config/recap.yaml', '--json']);
    const out = JSON.parse(stdout) as {
      prompt_tokens: number;
      budget: number;
      priming_tokens: number;
      tools_tokens: number;
      messages: { index: number; role: string; tokens: number }[];
    };
    expect(Object.keys(out).sort()).toEqual(['budget', 'messages', 'priming_tokens', 'prompt_tokens', 'tools_tokens']);
    expect(out.budget).toBe(128000 - 1000);
    expect(out.messages.map((m) => [m.index, m.role])).toEqual([
      [0, 'system'],
      [1, 'user'],
    ]);
    expect(out).toMatchObject({ priming_tokens: 3, tools_tokens: 0 });
    expect(out.prompt_tokens).toBe(out.messages.reduce((a, m) => a + m.tokens, 0) + 3);
  });

  it('reads stdin with - and prints a readable table without --json', async () => {
    const { stdout } = await cli(['count', '-', '--config', 'config/recap.yaml'], JSON.stringify(body));
    expect(stdout).toMatch(/prompt tokens: +\d+/);
    expect(stdout).toMatch(/budget: +127000/);
  });

  it('shows the priming and tools tokens as rows, so that the rows add up to the total, in text and JSON', async () => {
    const withTools = {
      ...body,
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
    };
    const input = JSON.stringify(withTools);
    const [jsonRun, { stdout }] = await Promise.all([cli(['count', '-', '--json'], input), cli(['count', '-'], input)]);
    const json = JSON.parse(jsonRun.stdout) as {
      prompt_tokens: number;
      priming_tokens: number;
      tools_tokens: number;
      messages: { tokens: number }[];
    };
    expect(json.tools_tokens).toBeGreaterThan(0);
    expect(json.messages.reduce((a, m) => a + m.tokens, 0) + json.priming_tokens + json.tools_tokens).toBe(json.prompt_tokens);

    const rows = stdout.split('\n').filter((l) => /^\s+(\d+|)\s+\S+\s+\d+$/.test(l));
    const tokens = (label: string) =>
      Number(
        rows
          .find((l) => l.includes(label))
          ?.trim()
          .split(/\s+/)
          .at(-1),
      );
    expect(tokens('(priming)')).toBe(json.priming_tokens);
    expect(tokens('(tools)')).toBe(json.tools_tokens);
    expect(tokens('total')).toBe(json.prompt_tokens);
    const parts = rows.filter((l) => !l.includes('total')).map((l) => Number(l.trim().split(/\s+/).at(-1)));
    expect(parts.reduce((a, b) => a + b, 0)).toBe(json.prompt_tokens);
  });
});

// Every case runs the CLI (node + tsx) several times: on a busy 2-core machine that takes a while.
describe('recap --help and usage errors', { timeout: 60_000 }, () => {
  it('prints the overview on stdout and exits 0 for --help, -h and help', async () => {
    // Side by side, each a process of its own.
    for (const { stdout, stderr } of await Promise.all(['--help', '-h', 'help'].map((arg) => cli([arg])))) {
      expect(stdout).toMatch(/^usage: recap <command>/);
      for (const name of ['serve', 'count', 'demo', 'health']) expect(stdout).toMatch(new RegExp(`^  ${name} `, 'm'));
      expect(stderr).toBe('');
    }
  });

  it("prints each command's own usage on stdout and exits 0 for `recap <command> --help|-h` and `recap help <command>`", async () => {
    const asked = [...['serve', 'count', 'demo', 'health'].map((name) => [name, '--help']), ['help', 'serve'], ['demo', '-h'], ['health', '--port', '1', '-h']];
    // Each run is a process of its own: side by side, so that a busy machine does not add them up.
    const runs = await Promise.all(asked.map((args) => cli(args)));
    runs.forEach(({ stdout, stderr }, i) => {
      const args = asked[i]!;
      expect(stdout).toMatch(new RegExp(`^usage: recap ${args[0] === 'help' ? args[1] : args[0]} `));
      expect(stderr).toBe('');
    });
    expect(runs[0]!.stdout).toContain('--workers N|auto');
    // --help wins over what a command would otherwise refuse (count without FILE).
    expect(runs[1]!.stdout).toMatch(/^usage: recap count FILE\|-/);
  });

  it('exits 2 with the usage on stderr for a bare recap, and names an unknown command', async () => {
    const [bare, unknown] = await Promise.all([failure(cli([])), failure(cli(['frobnicate']))]);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/^usage: recap <command>/);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe("recap: unknown command 'frobnicate'\nrun 'recap --help' for usage\n");
  });

  it("echoes the bad value of an option and points at the command's --help", async () => {
    const [turns, zero, port, envPort, workers] = await Promise.all([
      failure(cli(['demo', '--turns', 'abc'])),
      failure(cli(['demo', '--turns', '0'])),
      failure(cli(['serve', '--config', 'config/recap.yaml', '--port', '80x'])),
      failure(cli(['serve', '--config', 'config/recap.yaml'], undefined, { env: { PORT: 'http' } })),
      failure(cli(['serve', '--config', 'config/recap.yaml', '--workers', 'many'])),
    ]);
    expect(turns.code).toBe(2);
    expect(turns.stderr).toBe("recap: --turns must be a positive integer, got 'abc'\nrun 'recap demo --help' for usage\n");
    expect(zero.stderr).toContain("--turns must be a positive integer, got '0'");
    expect([port.code, port.stderr.split('\n')[0]]).toEqual([2, "recap: --port must be a port number from 0 to 65535, got '80x'"]);
    expect(envPort.stderr.split('\n')[0]).toBe("recap: PORT must be a port number from 0 to 65535, got 'http'");
    expect(workers.stderr.split('\n')[0]).toBe("recap: --workers must be a positive integer or 'auto', got 'many'");
  });

  it('names an unknown option and exits 2', async () => {
    const names = ['serve', 'count', 'demo', 'health'];
    const errs = await Promise.all(names.map((name) => failure(cli([name, '--colour', 'blue']))));
    errs.forEach((err, i) => {
      expect(err.code).toBe(2);
      expect(err.stderr).toBe(`recap: Unknown option '--colour'\nrun 'recap ${names[i]} --help' for usage\n`);
    });
  });
});

describe('recap serve', () => {
  it('run from a folder without a config, says where it looked and how to name one', async () => {
    const err = await failure(cli(['serve'], undefined, { cwd: dir }));
    expect(err.code).toBe(1);
    expect(err.stderr).toBe(
      `config/recap.yaml: (file): no config file at the default path, ${join(dir, 'config/recap.yaml')} (relative to the working directory); name a config file with --config FILE or RECAP_CONFIG=FILE\n`,
    );
  });

  it('reports a store.url that is not a Redis URL as file: key: problem', async () => {
    const file = join(dir, 'http-store.yaml');
    await writeFile(file, 'upstreams:\n  a: { base_url: "http://127.0.0.1:1/v1" }\nstore:\n  url: http://127.0.0.1:6379\n');
    const err = await failure(cli(['serve', '--config', file]));
    expect(err.code).toBe(1);
    expect(err.stderr).toMatch(new RegExp(`^${file}: store\\.url: expected redis://`));
  });

  it('refuses --workers 2 on the in-memory store before starting anything', async () => {
    const err = await failure(cli(['serve', '--config', 'config/recap.yaml', '--workers', '2']));
    expect(err.code).toBe(1);
    expect(err.stderr).toMatch(/^recap: --workers 2: 2 workers need a shared store: set store\.url or REDIS_URL/);
  });

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

describe('recap health', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness();
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('exits 0 when recap answers /healthz on the port the config names, and 1 when nothing does', async () => {
    const [free = 0] = await freePorts(1);
    const file = join(dir, 'health.yaml');
    await writeFile(file, `server:\n  port: \${RECAP_PORT:-${free}}\nupstreams:\n  a: { base_url: "http://127.0.0.1:1/v1" }\n`);
    const [down] = await Promise.all([
      failure(cli(['health', '--config', file])),
      cli(['health', '--config', file], undefined, { env: { RECAP_PORT: String(harness.recap.port) } }),
      cli(['health', '--port', String(harness.recap.port)]),
      cli(['health', '--config', file], undefined, { env: { PORT: String(harness.recap.port) } }),
    ]);
    expect(down.code).toBe(1);
    expect(down.stderr).toBe(`recap health: http://127.0.0.1:${free}/healthz: ECONNREFUSED\n`);
  });
});
