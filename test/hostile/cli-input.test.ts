import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI } from '../helpers/cli-build.js';

// What `recap count` and `recap eval` read is bounded by the config's body limit, as a request is:
// a FILE that is a symlink to /dev/zero, or `count -` fed from it, used to be read until memory ran
// out (1.5 GiB in 15 s). Each stops with one line naming the limit. A file that starts with a UTF-8
// BOM (as editors on Windows write them) is read as the JSON after it. Driven as a user would: the
// real CLI in a process of its own.

const ROOT = join(import.meta.dirname, '../..');
const LIMIT = 64 * 1024;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The CLI with `stdin` as its standard input; killed (code null) if it has not ended in 30 s. */
function cli(args: string[], stdin: number | 'ignore' = 'ignore'): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: ROOT,
      env: { ...process.env, REDIS_URL: '', RECAP_CONFIG: '', PORT: '' },
      stdio: [stdin, 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d));
    child.stderr!.on('data', (d: Buffer) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

let dir: string;
let config: string;
let zero: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'recap-cli-input-'));
  config = join(dir, 'recap.yaml');
  await writeFile(
    config,
    [
      'server:',
      `  body_limit_bytes: ${LIMIT}`,
      'upstreams:',
      '  fake: { base_url: "http://127.0.0.1:1/v1" }',
      'models:',
      '  - match: agent-model',
      '    upstream: fake',
      '    context_window: 32000',
      '    max_output_tokens: 1000',
    ].join('\n'),
  );
  zero = join(dir, 'zero.json');
  await symlink('/dev/zero', zero);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

describe('recap count and recap eval on hostile input', { timeout: 60_000 }, () => {
  it('stop at the body limit with one line for a FILE that is /dev/zero, and for `count -` fed from it', async () => {
    const fd = openSync('/dev/zero', 'r');
    const runs = await Promise.all([cli(['count', zero, '--config', config]), cli(['eval', zero, '--config', config]), cli(['count', '-', '--config', config], fd)]).finally(() =>
      closeSync(fd),
    );
    const [count, evaluated, stdin] = runs;
    expect(count).toEqual({ code: 1, stdout: '', stderr: `recap: ${zero}: larger than the body limit of ${LIMIT} bytes (server.body_limit_bytes)\n` });
    expect(evaluated).toEqual({ code: 1, stdout: '', stderr: `recap: ${zero}: larger than the body limit of ${LIMIT} bytes (server.body_limit_bytes)\n` });
    expect(stdin).toEqual({ code: 1, stdout: '', stderr: `recap: stdin: larger than the body limit of ${LIMIT} bytes (server.body_limit_bytes)\n` });
  });

  it('read a file that starts with a UTF-8 BOM as the JSON after it', async () => {
    const body = { model: 'agent-model', messages: [{ role: 'user', content: 'Which pods run checkout-api?' }] };
    const file = join(dir, 'bom.json');
    await writeFile(file, Buffer.concat([BOM, Buffer.from(JSON.stringify(body))]));
    const count = await cli(['count', file, '--config', config, '--json']);
    expect(count.code).toBe(0);
    expect(JSON.parse(count.stdout)).toMatchObject({ budget: 31000, messages: [{ index: 0, role: 'user' }] });
    // eval read the file and its model: what stops it is that the model compacts nothing.
    const evaluated = await cli(['eval', file, '--config', config]);
    expect(evaluated).toEqual({ code: 1, stdout: '', stderr: 'recap: model "agent-model" (config "agent-model") has compaction.strategy off: recap evicts nothing from it\n' });
  });

  it('print one line, no stack, for a missing FILE, and exit 2 for usage errors', async () => {
    const missing = join(dir, 'missing.json');
    const runs = await Promise.all([
      cli(['count', missing, '--config', config]),
      cli(['eval', missing, '--config', config]),
      cli(['count', dir, '--config', config]),
      cli(['eval', '--config', config]),
      cli(['eval', '--max-probes', 'many', missing]),
      cli(['eval', '--colour', 'blue']),
      cli(['count', 'a.json', 'b.json']),
    ]);
    const [count, evaluated, directory, noFile, badProbes, badOption, twoFiles] = runs;
    expect(count).toEqual({ code: 1, stdout: '', stderr: `recap: ${missing}: no such file\n` });
    expect(evaluated).toEqual({ code: 1, stdout: '', stderr: `recap: ${missing}: no such file\n` });
    expect(directory).toEqual({ code: 1, stdout: '', stderr: `recap: ${dir}: is a directory\n` });
    const usage = (line: string, command: string) => ({ code: 2, stdout: '', stderr: `recap: ${line}\nrun 'recap ${command} --help' for usage\n` });
    expect(noFile).toEqual(usage('eval needs a FILE (a whole conversation: a chat or Responses request body as JSON)', 'eval'));
    expect(badProbes).toEqual(usage("--max-probes must be a positive integer, got 'many'", 'eval'));
    expect(badOption).toEqual(usage("Unknown option '--colour'", 'eval'));
    expect(twoFiles).toEqual(usage("count takes one FILE, got also 'b.json'", 'count'));
  });

  it('count a Responses body as the /v1/responses route does: instructions, items and tools add up', async () => {
    const body = {
      model: 'agent-model',
      instructions: 'You are a build agent.',
      input: [
        { role: 'user', content: 'Build svc-1.' },
        { type: 'function_call', call_id: 'c1', name: 'build', arguments: '{"service":"svc-1"}' },
        { type: 'function_call_output', call_id: 'c1', output: 'uploaded to s3://builds/app-1' },
      ],
      tools: [{ type: 'function', name: 'build', parameters: { type: 'object', properties: { service: { type: 'string' } } } }],
      max_output_tokens: 500,
    };
    const file = join(dir, 'responses.json');
    await writeFile(file, JSON.stringify(body));
    const { code, stdout } = await cli(['count', file, '--config', config, '--json']);
    expect(code).toBe(0);
    const out = JSON.parse(stdout) as {
      prompt_tokens: number;
      budget: number;
      priming_tokens: number;
      tools_tokens: number;
      instructions_tokens: number;
      messages: { role: string; tokens: number }[];
    };
    expect(out.budget).toBe(32000 - 500);
    expect(out.messages.map((m) => m.role)).toEqual(['user', 'function_call', 'function_call_output']);
    expect(out.instructions_tokens).toBeGreaterThan(0);
    expect(out.tools_tokens).toBeGreaterThan(0);
    expect(out.messages.reduce((a, m) => a + m.tokens, 0) + out.priming_tokens + out.instructions_tokens + out.tools_tokens).toBe(out.prompt_tokens);
  });
});
