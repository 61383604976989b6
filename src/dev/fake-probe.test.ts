// The fake answering recall probes through the SDK: from what it was sent, or "I don't know".
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from './fake-upstream.js';
import { answerProbe, probeCue } from './fake-probe.js';

let fake: FakeUpstream;
let client: OpenAI;
beforeAll(async () => {
  fake = await startFakeUpstream();
  client = new OpenAI({ baseURL: fake.url, apiKey: 'test', maxRetries: 0 });
});
afterAll(() => fake.close());

type Msg = OpenAI.Chat.Completions.ChatCompletionMessageParam;
const history: Msg[] = [
  { role: 'system', content: 'Summary of the earlier part: the user opened ticket SUP-4411.\n## Identifiers\n- /etc/billing/rates.yaml' },
  { role: 'user', content: 'The refund limit is 250 EUR per order. We decided to use Stripe for payouts.' },
  { role: 'assistant', content: 'Noted.' },
];

async function ask(question: string, messages = history): Promise<string> {
  const reply = await client.chat.completions.create({ model: 'gpt-4o', messages: [...messages, { role: 'user', content: question }] });
  return reply.choices[0]?.message.content ?? '';
}

describe('fake probe answers', () => {
  it('finds an identifier by its beginning, in a summary or a list', async () => {
    expect(await ask('Earlier in this conversation an identifier beginning with "SUP-44" came up. What was it exactly?')).toContain('SUP-4411');
    expect(await ask('Earlier in this conversation an identifier beginning with "/etc/bil" came up. What was it exactly?')).toContain('/etc/billing/rates.yaml');
  });

  it('quotes the passage holding every word of the cue', async () => {
    const answer = await ask('Earlier in this conversation a message mentioned "refund limit order". What exactly did it say?');
    expect(answer).toBe('From what I can see: The refund limit is 250 EUR per order.');
  });

  it('says it does not know what it was not given, and never reads the question itself', async () => {
    const answer = await ask('Earlier in this conversation an identifier beginning with "INV-9" came up. What was it exactly?');
    expect(answer).toMatch(/^I don't know/);
    expect(await ask('Earlier in this conversation a message mentioned "refund limit order". What was it?', [])).toMatch(/^I don't know/);
  });

  it('answers other messages as before', async () => {
    expect(await ask('What did we say about "refund limit"?')).toMatch(/^Echo: /);
  });
});

describe('probeCue', () => {
  it('reads the quoted cue of a probe question only', () => {
    expect(probeCue('Earlier in this conversation a message mentioned "a b". What?')).toBe('a b');
    expect(probeCue('Tell me about "a b"')).toBeNull();
    expect(probeCue('Earlier in this conversation, what happened?')).toBeNull();
  });

  it('shows a long passage around the cue', () => {
    const long = `${'x'.repeat(2000)} the key is KEY-77 ${'y'.repeat(2000)}`;
    const answer = answerProbe([{ role: 'tool', content: long }], 'KEY-7');
    expect(answer).toContain('KEY-77');
    expect(answer.length).toBeLessThan(400);
  });

  it('reads past tool-call arguments that are not a string', () => {
    const messages = [{ role: 'assistant', content: 'Ticket SUP-9001.', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: { toString: 1 } } }] }];
    expect(answerProbe(messages, 'SUP-90')).toContain('SUP-9001');
  });
});
