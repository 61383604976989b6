import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Config, loadConfig } from '../src/config/config.js';
import { type FakeUpstream, startFakeUpstream } from '../src/dev/fake-upstream.js';
import { reportJson } from '../src/eval/report.js';
import { runEval } from '../src/eval/run.js';
import { CLI } from './helpers/cli-build.js';

// `recap eval` on the shipped example conversation against the fake upstream, whose summarizer
// drops every identifier (lossy mode) and whose model answers probes from what it was sent.

const ROOT = join(import.meta.dirname, '..');
const EXAMPLE = join(ROOT, 'examples/conversations/support-ticket.json');
const CONFIG = join(ROOT, 'examples/eval-fake.yaml');
const run = promisify(execFile);

let fake: FakeUpstream;
let config: Config;
beforeAll(async () => {
  fake = await startFakeUpstream({ summarizerModel: 'fake-summarizer', lossySummarizer: true });
  config = loadConfig(CONFIG, { FAKE_UPSTREAM_URL: fake.url });
});
afterAll(() => fake.close());

function withCompaction(c: Config, compaction: Record<string, unknown>, model: Record<string, unknown> = {}): Config {
  return { ...c, models: c.models.map((m) => ({ ...m, ...model, compaction: { ...m.compaction, ...compaction } })) };
}

function cli(args: string[]) {
  return run(process.execPath, [CLI, 'eval', ...args], { cwd: ROOT, env: { ...process.env, REDIS_URL: '', FAKE_UPSTREAM_URL: fake.url } });
}

/** An agent's task of 20 tool steps, each result ~1,000 tokens holding facts of its own, as a chat or a Responses body. */
function agentConversation(route: 'chat' | 'responses'): Record<string, unknown> {
  const filler = 'the build step ran and the runner wrote its usual progress lines about caches and layers and timings';
  const result = (k: number) =>
    `Build ${k} finished. The artifact was uploaded to s3://builds/app-${k}/bundle-${(k * 2_654_435_761).toString(16)}.tar.gz and signed by team-${['ember', 'falcon', 'garnet', 'harbor'][k % 4]}-${k}. ${Array.from({ length: 40 }, () => filler).join('. ')}.`;
  const task = 'Build every service of release R-42 and report where each artifact went.';
  const steps = Array.from({ length: 20 }, (_, k) => ({ id: `call_${k}`, args: JSON.stringify({ service: `svc-${k}` }), output: result(k) }));
  if (route === 'chat') {
    return {
      model: 'agent-model',
      messages: [
        { role: 'system', content: 'You are a build agent.' },
        { role: 'user', content: task },
        ...steps.flatMap((s) => [
          { role: 'assistant', content: null, tool_calls: [{ id: s.id, type: 'function', function: { name: 'build', arguments: s.args } }] },
          { role: 'tool', tool_call_id: s.id, content: s.output },
        ]),
      ],
    };
  }
  return {
    model: 'agent-model',
    instructions: 'You are a build agent.',
    input: [
      { role: 'user', content: task },
      ...steps.flatMap((s) => [
        { type: 'function_call', call_id: s.id, name: 'build', arguments: s.args },
        { type: 'function_call_output', call_id: s.id, output: s.output },
      ]),
    ],
  };
}

async function file(content: string): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), 'recap-eval-')), 'conversation.json');
  await writeFile(path, content);
  return path;
}

describe('recap eval', () => {
  it('recalls measurably more of what was evicted with the ledger on than off', async () => {
    const on = reportJson(await runEval({ file: EXAMPLE, config }));
    const off = reportJson(await runEval({ file: EXAMPLE, config: withCompaction(config, { ledger: false }) }));
    expect(on.probes).toBe(off.probes);
    expect(on.probes).toBeGreaterThanOrEqual(20);
    expect(on.recall_full).toBe(1);
    expect(off.recall_full).toBe(1);
    expect(on.recall_compacted as number).toBeGreaterThanOrEqual((off.recall_compacted as number) + 0.15);
    const identifiers = (r: Record<string, unknown>) => (r.by_kind as Record<string, { recall_compacted: number }>).identifier!.recall_compacted;
    expect(identifiers(on)).toBeGreaterThan(identifiers(off));
    expect((on.ledger_identifiers as { appended: number }).appended).toBeGreaterThan(0);
    expect(on.tokens_compacted as number).toBeLessThan(on.tokens_full as number);
    expect(on.summarizer_calls).toBe(1);
    // With recap_recall offered, the model gets back what the summary lost: within 10% of the full history.
    for (const r of [on, off]) {
      expect(r.recall_with_recall as number).toBeGreaterThanOrEqual((r.recall_full as number) - 0.1);
      expect(r.recall_with_recall as number).toBeGreaterThan(r.recall_compacted as number);
    }
    const cost = on.recall_hops as { calls: number; hops: number; probes_recalling: number; extra_upstream_tokens_per_recall: number };
    expect(cost.calls).toBeGreaterThan(0);
    expect(cost.hops).toBe(cost.calls);
    expect(cost.extra_upstream_tokens_per_recall).toBeGreaterThan(0);
  }, 60_000);

  it('prints the documented JSON with --json, and progress on stderr', async () => {
    const { stdout, stderr } = await cli([EXAMPLE, '--config', CONFIG, '--json', '--max-probes', '6']);
    const out = JSON.parse(stdout) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(
      expect.arrayContaining([
        'probes',
        'recall_compacted',
        'recall_full',
        'tokens_full',
        'tokens_compacted',
        'summarizer_calls',
        'summarizer_tokens',
        'recall_with_recall',
        'recall_hops',
      ]),
    );
    expect(out.probes).toBe(6);
    expect(typeof out.recall_compacted).toBe('number');
    expect(stderr).toMatch(/^recap eval: compacting 602 messages through recap/m);
    expect(stderr).toMatch(/^recap eval: probe 6\/6/m);
  }, 60_000);

  it('prints a table without --json', async () => {
    const { stdout } = await cli([EXAMPLE, '--config', CONFIG, '--max-probes', '4']);
    expect(stdout).toMatch(/^recall +\d+\/4 +\d+% +\d+\/4 +\d+% +4\/4 100%$/m);
    expect(stdout).toMatch(/^prompt tokens +[\d,]+ +[\d,]+ +[\d,]+$/m);
    expect(stdout).toMatch(/^summarizer: 1 call, [\d,]+ tokens/m);
    expect(stdout).toMatch(/^recap_recall: [\d,]+ calls? in \d+ probes, [\d,]+ hops? \([\d.]+ a probe\); each recall \+[\d,]+ upstream tokens, [+-][\d,]+ ms$/m);
  }, 60_000);

  it('gets a clear error and a non-zero exit for a bad FILE', async () => {
    const missing = (await cli(['/nonexistent/conversation.json', '--config', CONFIG]).catch((e: unknown) => e)) as { code: number; stderr: string };
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('/nonexistent/conversation.json: no such file');

    const notJson = await file('{"model": "support-assistant", ');
    await expect(runEval({ file: notJson, config })).rejects.toThrow(`${notJson}: not JSON`);
    const notChat = await file('{"model": "support-assistant", "messages": "hi"}');
    await expect(runEval({ file: notChat, config })).rejects.toThrow(`${notChat}: not a chat request body`);
    const textInput = await file('{"model": "support-assistant", "input": "hi"}');
    await expect(runEval({ file: textInput, config })).rejects.toThrow(`${textInput}: not a conversation recap compacts: a Responses body needs \`input\` as an array of items`);
    const noModel = await file('{"model": "gpt-unknown", "messages": [{"role": "user", "content": "hi"}]}');
    await expect(runEval({ file: noModel, config })).rejects.toThrow('no entry of the config\'s models matches "gpt-unknown"');
    const fits = await file('{"model": "support-assistant", "messages": [{"role": "user", "content": "hi"}]}');
    await expect(runEval({ file: fits, config })).rejects.toThrow(/nothing is evicted: the conversation fits \(\d+ tokens; compaction starts above 0\.5 × the \d+-token budget\)/);
    await expect(runEval({ file: EXAMPLE, config: withCompaction(config, { strategy: 'off' }) })).rejects.toThrow('compaction.strategy off');
  }, 60_000);

  it('says why when the compaction fails', async () => {
    fake.enqueue({ status: 500 }, { model: 'fake-summarizer' });
    await expect(runEval({ file: EXAMPLE, config })).rejects.toThrow('compaction failed (summarizer_error)');
  }, 60_000);

  it('asks only through recap when the full history does not fit the window, and without recap_recall when recall is off', async () => {
    const small = withCompaction(config, { trigger_ratio: 1, target_ratio: 0.6 }, { context_window: 16_000, recall: { enabled: false } });
    const report = reportJson(await runEval({ file: EXAMPLE, config: small, maxProbes: 4 }));
    expect(report.recall_full).toBeNull();
    expect(report.full_skipped).toMatch(/does not fit the 16000-token context window/);
    expect(typeof report.recall_compacted).toBe('number');
    expect(report).toMatchObject({
      recall_with_recall: null,
      recall_hops: null,
      recall_skipped: 'recall is off for model "support-assistant" (config "support-assistant": recall.enabled false)',
    });
  }, 60_000);

  it('probes what clearing evicted, on an agent conversation compacted by clearing alone: table and exit 0 on chat, JSON on Responses', async () => {
    const agentConfig = await file(
      [
        'upstreams:',
        `  fake: { base_url: "${fake.url}" }`,
        'models:',
        '  - match: agent-model',
        '    upstream: fake',
        '    context_window: 32000',
        '    max_output_tokens: 1000',
        '    compaction: { strategy: summarize, summarizer: { model: fake-summarizer }, trigger_ratio: 0.5, target_ratio: 0.3 }',
      ].join('\n'),
    );
    const summaries = fake.summarizerRequests().length;
    const chat = await file(JSON.stringify(agentConversation('chat')));
    const { stdout, stderr } = await cli([chat, '--config', agentConfig, '--max-probes', '8']);
    expect(stdout).toMatch(/^evicted \d+ of 42 messages: \d+ tool results cleared; 8 probes about them$/m);
    expect(stdout).toMatch(/^recall +\d\/8 +\d+% +\d\/8 +\d+% +8\/8 100%$/m);
    expect(stdout).toMatch(/^ {2}cleared \(8\) +\d\/8 +\d+% +8\/8 100% +8\/8 100%$/m);
    expect(stderr).toMatch(/^recap eval: probe 8\/8/m);

    const responses = await file(JSON.stringify(agentConversation('responses')));
    const report = reportJson(await runEval({ file: responses, config: loadConfig(agentConfig, {}), maxProbes: 8 }));
    expect(report).toMatchObject({ route: 'responses', probes: 8, recall_full: 1, summarized_messages: 0, summary_tokens: 0 });
    expect(report.cleared_messages as number).toBeGreaterThanOrEqual(8);
    expect((report.by_eviction as Record<string, { probes: number }>).cleared!.probes).toBe(8);
    // The stubs kept no content: what the probes ask about is gone from recap's view, until the model recalls it.
    expect(report.recall_compacted as number).toBeLessThan(1);
    expect(report.recall_with_recall).toBe(1);
    expect(fake.summarizerRequests()).toHaveLength(summaries);
  }, 90_000);

  it('prints its usage with --help', async () => {
    const { stdout } = await cli(['--help']);
    expect(stdout).toMatch(/^usage: recap eval FILE \[--config FILE\] \[--json\]/);
  }, 30_000);
});
