// The fake summarizer through the SDK: sections, extracted identifiers, bounds and scripting.
import OpenAI from 'openai';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from './fake-upstream.js';
import { SUMMARY_SECTIONS } from './fake-summary.js';

const SUMMARIZER = 'summarizer-mini';
let fake: FakeUpstream;
let client: OpenAI;

const transcript = [
  'user: I want to move the billing service to port 8443 and keep order ORD-4411 working.',
  'assistant: The config lives in src/billing/config.yaml and the deploy id is 7f3a9c21.',
  'user: We decided to use Redis 7.2 for the session store.',
  'assistant: Should the old endpoint https://billing.internal/v1/pay stay up?',
  'user: Next we should update deploy/run.sh and rerun the tests.',
].join('\n');

function summarize(maxTokens?: number, text = transcript) {
  return client.chat.completions.create({
    model: SUMMARIZER,
    max_tokens: maxTokens,
    messages: [
      { role: 'system', content: 'Summarize the conversation into the sections Goal, Current state, ...' },
      { role: 'user', content: text },
    ],
  });
}

beforeEach(async () => {
  fake ??= await startFakeUpstream({ summarizerModel: SUMMARIZER });
  client ??= new OpenAI({ baseURL: fake.url, apiKey: 'test', maxRetries: 0 });
  fake.reset();
});
afterAll(() => fake.close());

describe('summarizer calls', () => {
  it('answers with an extractive summary in the expected sections', async () => {
    const summary = (await summarize()).choices[0]?.message.content ?? '';
    for (const section of SUMMARY_SECTIONS) expect(summary).toContain(`## ${section}`);
    for (const id of ['8443', 'ORD-4411', 'src/billing/config.yaml', '7f3a9c21', '7.2', 'https://billing.internal/v1/pay', 'deploy/run.sh']) {
      expect(summary).toContain(id);
    }
    expect(summary).toMatch(/## Goal\n- user: I want to move the billing service/);
    expect(summary).toMatch(/## Decisions\n- user: We decided to use Redis 7\.2/);
    expect(summary).toMatch(/## Open questions\n- assistant: Should the old endpoint/);
    expect(await summarize().then((c) => c.choices[0]?.message.content)).toBe(summary);
  });

  it('keeps the summary within max_tokens × 4 characters', async () => {
    const summary = (await summarize(30)).choices[0]?.message.content ?? '';
    expect(summary.length).toBeLessThanOrEqual(120);
    expect(summary.startsWith('## Goal')).toBe(true);
  });

  it('records summarizer calls apart from chat calls', async () => {
    await summarize();
    await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    expect(fake.summarizerRequests()).toHaveLength(1);
    expect(fake.chatRequests()).toHaveLength(1);
    expect(fake.chatRequests()[0]?.json.model).toBe('gpt-4o');
  });

  it('takes only replies scripted for its model', async () => {
    fake.enqueue({ content: 'for the app' });
    fake.enqueue({ status: 500 }, { model: SUMMARIZER });
    await expect(summarize()).rejects.toBeInstanceOf(OpenAI.InternalServerError);
    fake.enqueue({ content: '' }, { model: SUMMARIZER });
    expect((await summarize()).choices[0]?.message.content).toBe('');
    const app = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    expect(app.choices[0]?.message.content).toBe('for the app');
  });

  it('drops every identifier in lossy mode, keeping the sentences', async () => {
    fake.setOptions({ lossySummarizer: true });
    try {
      const summary = (await summarize()).choices[0]?.message.content ?? '';
      for (const section of SUMMARY_SECTIONS) expect(summary).toContain(`## ${section}`);
      for (const id of ['8443', 'ORD-4411', 'src/billing/config.yaml', '7f3a9c21', '7.2', 'https://billing.internal/v1/pay', 'deploy/run.sh']) {
        expect(summary).not.toContain(id);
      }
      expect(summary).toMatch(/## Decisions\n- user: We decided to use Redis … for the session store\./);
    } finally {
      fake.setOptions({ lossySummarizer: false });
    }
  });

  it("reads recap's input blocks, not the scaffolding around them", async () => {
    const input = `There is no previous summary.\n\n<transcript>\n${transcript}\n</transcript>\n\nWrite the updated summary now.`;
    const summary = (await summarize(undefined, input)).choices[0]?.message.content ?? '';
    expect(summary).toContain('ORD-4411');
    expect(summary).not.toContain('previous summary');
    expect(summary).not.toContain('Write the updated summary');
  });

  it("does not take a previous summary's headings for sentences", async () => {
    const previous = '<previous_summary>\n## Identifiers from earlier turns (kept verbatim by recap, newest first)\n- ORD-4411\n</previous_summary>';
    const summary = (await summarize(undefined, `${previous}\n${transcript}`)).choices[0]?.message.content ?? '';
    expect(summary).not.toContain('kept verbatim by recap');
  });

  it('waits summarizerLatencyMs before answering', async () => {
    fake.setOptions({ summarizerLatencyMs: 80 });
    const started = Date.now();
    await summarize();
    expect(Date.now() - started).toBeGreaterThanOrEqual(75);
    fake.setOptions({ summarizerLatencyMs: 0 });
  });
});
