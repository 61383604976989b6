import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/config.js';
import { type FakeAnthropic, startFakeAnthropic } from '../src/dev/fake-anthropic.js';
import { signThinking } from '../src/dev/fake-anthropic-thinking.js';
import { runEval } from '../src/eval/run.js';

// `recap eval` on an Anthropic Messages conversation (an agent's tool_use / tool_result steps with
// thinking) against the fake Anthropic upstream, which answers probes from what it was sent:
// the compacted view, with recap_recall, and the full history asked of the upstream itself.

let fake: FakeAnthropic;
beforeAll(async () => {
  fake = await startFakeAnthropic({ summarizerModel: 'claude-test-haiku' });
});
afterAll(() => fake.close());

function conversation(): object {
  const filler = 'the build step ran and the runner wrote its usual progress lines about caches and layers and timings';
  const messages: object[] = [{ role: 'user', content: 'Build every service of release R-42 and report where each artifact went.' }];
  for (let k = 0; k < 20; k++) {
    const id = `toolu_${k}`;
    messages.push({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: `Build svc-${k} next.`, signature: signThinking(`Build svc-${k} next.`) },
        { type: 'tool_use', id, name: 'build', input: { service: `svc-${k}` } },
      ],
    });
    const result = `Build ${k} finished. The artifact was uploaded to s3://builds/app-${k}/bundle-${(k * 2_654_435_761).toString(16)}.tar.gz and signed by team-${['ember', 'falcon', 'garnet', 'harbor'][k % 4]}-${k}. ${Array.from({ length: 40 }, () => filler).join('. ')}.`;
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: result }] });
  }
  return {
    model: 'claude-test-eval',
    max_tokens: 1024,
    system: 'You are a build agent.',
    tools: [{ name: 'build', description: 'Build a service.', input_schema: { type: 'object' } }],
    messages,
  };
}

describe('recap eval on an Anthropic conversation', () => {
  it('compacts it through /v1/messages and probes the compacted view, recall and the full history', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'recap-eval-anthropic-')), 'conversation.json');
    await writeFile(file, JSON.stringify(conversation()));
    const config = parseConfig(
      JSON.stringify({
        upstreams: { anthropic: { base_url: fake.url, api: 'anthropic' } },
        models: [
          {
            match: 'claude-test-*',
            upstream: 'anthropic',
            context_window: 200000,
            max_output_tokens: 4096,
            encoding: 'estimate',
            budget: 9000,
            compaction: { strategy: 'summarize', summarizer: { model: 'claude-test-haiku', upstream: 'anthropic' }, summary_max_tokens: 400 },
          },
        ],
      }),
      'eval-anthropic.json',
      {},
    );
    const report = await runEval({ file, config, maxProbes: 4, credential: 'sk-ant-eval' });
    expect(report.route).toBe('messages');
    expect(report.summarizedMessages + report.clearedMessages).toBeGreaterThan(0);
    expect(report.results.length).toBeGreaterThan(0);
    // The full history, asked of the upstream directly, holds every answer.
    expect(report.fullSkipped).toBeNull();
    expect(report.results.every((p) => p.full?.passed)).toBe(true);
    // recap_recall gets back what the compacted view left out.
    expect(report.results.every((p) => p.with_recall?.passed)).toBe(true);
    const direct = fake.requests.filter((r) => r.headers['x-api-key'] === 'sk-ant-eval' && r.headers['anthropic-version'] === '2023-06-01');
    expect(direct.length).toBeGreaterThan(0);
    expect(fake.refusals()).toEqual([]);
  }, 60_000);
});
