import OpenAI from 'openai';
import { afterAll, describe, expect, it } from 'vitest';
import { startFakeUpstream } from '../src/dev/fake-upstream.js';
import { converse, prose } from './helpers/conversation.js';
import { type Harness, startHarness, testConfig, SUMMARIZER, smallModel } from './helpers/harness.js';
import { startRecapProcesses, writeConfigFile } from './helpers/recap-process.js';

// Rule 10: checkpoints prepared after the response. A failed job leaves nothing behind, and one
// boundary is prepared once even when two processes see it.

type Msg = OpenAI.Chat.Completions.ChatCompletionMessageParam;
const MODEL = 'gpt-test-small';
const model = smallModel();

async function metric(url: string, name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

const harnesses: Harness[] = [];
afterAll(async () => Promise.all(harnesses.map((h) => h.close())));

describe('background pre-compaction', () => {
  it('prepares the checkpoint off the request path, so the crossing turn reuses it', async () => {
    const h = await startHarness({ fake: { summarizerModel: SUMMARIZER, summarizerLatencyMs: 200 }, models: [model] });
    harnesses.push(h);
    // Between turns the background job gets its time, as between a user's messages.
    const { actions } = await converse(h.client({ conversation: 'bg-ready' }), { model: MODEL, rounds: 40, afterTurn: () => h.recap.runtime.background.idle() });
    expect(actions).not.toContain('compacted');
    expect(actions).not.toContain('degraded');
    expect(actions.filter((a) => a === 'reused').length).toBeGreaterThan(10);
    expect(await metric(h.recap.url, 'recap_background_jobs_total', 'outcome="done"')).toBe(h.fake.summarizerRequests().length);
  });

  it('leaves no record when a job fails, and the next requests still succeed', async () => {
    const h = await startHarness({ fake: { summarizerModel: SUMMARIZER }, models: [model] });
    harnesses.push(h);
    h.fake.setDefault((req) => ((req.json as { model?: string } | undefined)?.model === SUMMARIZER ? { status: 500 } : undefined));
    const client = h.client({ conversation: 'bg-fail' });
    const { messages, actions } = await converse(client, { model: MODEL, rounds: 24, afterTurn: () => h.recap.runtime.background.idle() });
    expect(await metric(h.recap.url, 'recap_background_jobs_total', 'outcome="failed"')).toBeGreaterThan(0);
    const inspect = await fetch(`${h.recap.url}/recap/v1/conversations/bg-fail`, { headers: { authorization: 'Bearer sk-test-key' } });
    expect(inspect.status).toBe(404);
    expect(actions).toContain('degraded');
    expect(actions).not.toContain('compacted');

    h.fake.setDefault(() => undefined);
    messages.push({ role: 'user', content: prose(99) });
    const { response } = await client.chat.completions.create({ model: MODEL, messages }).withResponse();
    expect(response.headers.get('x-recap-action')).toBe('compacted');
  });

  it('runs one job per boundary across two recap processes', async () => {
    const fake = await startFakeUpstream({ summarizerModel: SUMMARIZER, summarizerLatencyMs: 400 });
    const config = testConfig(fake, { storeUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', models: [model] });
    const file = await writeConfigFile(config);
    const [a, b] = await startRecapProcesses([file.file, file.file]);
    try {
      const messages: Msg[] = [{ role: 'system', content: 'ops' }];
      for (let t = 1; t <= 19; t++) messages.push({ role: 'user', content: prose(t) }, { role: 'assistant', content: `ok ${t}` });
      messages.push({ role: 'user', content: prose(20) });
      const send = (url: string) =>
        new OpenAI({ baseURL: `${url}/v1`, apiKey: 'sk-t', maxRetries: 0, defaultHeaders: { 'x-conversation-id': 'bg-two' } }).chat.completions
          .create({ model: MODEL, messages })
          .withResponse();
      const [ra, rb] = await Promise.all([send(a.url), send(b.url)]);
      expect([ra.response.headers.get('x-recap-action'), rb.response.headers.get('x-recap-action')]).toEqual(['none', 'none']);
      // Both processes scheduled the same boundary: once both jobs have ended, one made the checkpoint, the other found it.
      const ended = async (outcome: string) =>
        (await metric(a.url, 'recap_background_jobs_total', `outcome="${outcome}"`)) + (await metric(b.url, 'recap_background_jobs_total', `outcome="${outcome}"`));
      await expect.poll(async () => (await ended('done')) + (await ended('skipped')) + (await ended('failed')), { timeout: 20_000, interval: 50 }).toBe(2);
      expect(fake.summarizerRequests()).toHaveLength(1);
      expect(await ended('done')).toBe(1);
      expect(await ended('skipped')).toBe(1);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
      await fake.close();
      await file.cleanup();
    }
  });
});
