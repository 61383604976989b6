import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUMMARY_MARKER } from '../../src/compaction/summary-message.js';
import type { ScriptedReply } from '../../src/dev/fake-upstream.js';
import { overBudgetHistory, storedCheckpoints } from '../helpers/conversation.js';
import { type Harness, SUMMARIZER, smallModel, startHarness } from '../helpers/harness.js';

// An upstream that breaks or goes silent after its headers. The client sees a failure it can tell
// from a normal end (a broken connection, recap's 504, or an error event its SDK raises), recap
// lets go of the upstream, and a compacting turn that failed leaves no checkpoint behind: the
// client's retry compacts again and stores what it made (rule 8).

const IDLE_MS = 300;
const SILENCE_MS = 5_000;
// undici checks its body timer every ~0.5 s: without the pings, this silence would surely time out.
const PINGED_SILENCE_MS = 2_000;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    fake: { summarizerModel: SUMMARIZER },
    upstream: { timeouts: { body_idle_ms: IDLE_MS, headers_ms: 500 } },
    extra: { background: { enabled: false } },
    models: [smallModel(), {}],
  });
});
afterAll(async () => h.close());

const SMALL = 'gpt-test-small';
const story = { stream: { chunks: ['one ', 'two ', 'three ', 'four ', 'five ', 'six'] } };

interface Seen {
  action: string | null;
  text: string;
  error?: unknown;
}

/** One chat request through the SDK: what the app saw (the text it got, the error it caught). */
async function ask(conversation: string, stream: boolean, opts: { leaveAfterFirstToken?: boolean } = {}): Promise<Seen> {
  const client = h.client({ conversation });
  const body = { model: SMALL, messages: overBudgetHistory() };
  const seen: Seen = { action: null, text: '' };
  try {
    if (stream) {
      const { data, response } = await client.chat.completions.create({ ...body, stream: true }).withResponse();
      seen.action = response.headers.get('x-recap-action');
      for await (const chunk of data) {
        seen.text += chunk.choices[0]?.delta?.content ?? '';
        // Leaving the loop is how an SDK user abandons a stream: the SDK aborts the request.
        if (opts.leaveAfterFirstToken && seen.text) break;
      }
    } else {
      const { data, response } = await client.chat.completions.create(body).withResponse();
      seen.action = response.headers.get('x-recap-action');
      seen.text = data.choices[0]?.message.content ?? '';
    }
  } catch (err) {
    seen.error = err;
  }
  return seen;
}

function expectBroken(seen: Seen): void {
  expect(seen.error).toBeInstanceOf(Error);
  expect(seen.error).not.toBeInstanceOf(OpenAI.APIError);
  expect(seen.text).not.toBe('one two three four five six');
}

function expectUnreachable(seen: Seen): void {
  expect(seen.error).toBeInstanceOf(OpenAI.InternalServerError);
  expect((seen.error as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
  expect((seen.error as InstanceType<typeof OpenAI.APIError>).code).toBe('upstream_unreachable');
}

function expectTimeoutError(seen: Seen, status: number | undefined): void {
  expect(seen.error).toBeInstanceOf(OpenAI.APIError);
  const err = seen.error as InstanceType<typeof OpenAI.APIError>;
  expect(err.status).toBe(status);
  expect(err.error).toMatchObject({ code: 'upstream_timeout', type: 'api_error', param: null });
  expect(err.message).toMatch(/timed out \(response body\)/);
}

const faults: { name: string; stream: boolean; reply: ScriptedReply; sees: (s: Seen) => void }[] = [
  { name: 'a stream reset after 300 bytes', stream: true, reply: { ...story, resetAfterBytes: 300 }, sees: expectBroken },
  // A compacted turn is offered recap_recall (docs/recall.md): recap reads its JSON reply whole
  // before the client gets a byte, so a reply cut anywhere is recap's 502, not a broken connection.
  { name: 'a JSON reply reset after 20 bytes', stream: false, reply: { resetAfterBytes: 20 }, sees: expectUnreachable },
  { name: 'a JSON reply reset before its first body byte', stream: false, reply: { resetAfterBytes: 0 }, sees: expectUnreachable },
  { name: 'a JSON reply silent after its headers', stream: false, reply: { stall: { ms: SILENCE_MS } }, sees: (s) => expectTimeoutError(s, 504) },
  {
    name: 'a stream silent after three events',
    stream: true,
    reply: { ...story, stall: { ms: SILENCE_MS, afterEvents: 3 } },
    sees: (s) => {
      expect(s.action).toBe('compacted');
      expect(s.text).toBe('one two ');
      expectTimeoutError(s, undefined);
    },
  },
  {
    name: 'a stream silent after its headers',
    stream: true,
    reply: { ...story, stall: { ms: SILENCE_MS } },
    sees: (s) => {
      expect(s.text).toBe('');
      expectTimeoutError(s, undefined);
    },
  },
];

describe.each(faults)('upstream fault on a compacting turn: $name', ({ name, stream, reply, sees }) => {
  it('fails visibly, frees the upstream, stores nothing, and the retry compacts again', async () => {
    const conversation = `fault-${name}`;
    const summarizerCalls = h.fake.summarizerRequests().length;
    h.fake.enqueue(reply);
    sees(await ask(conversation, stream));

    const forwarded = h.fake.chatRequests().at(-1)!;
    expect(forwarded.body).toContain(SUMMARY_MARKER);
    expect(h.fake.summarizerRequests()).toHaveLength(summarizerCalls + 1);
    // recap hung up on a silent upstream rather than waiting for it.
    if (reply.stall) await expect.poll(() => forwarded.closedEarly).toBe(true);
    expect(await storedCheckpoints(h.recap.url, conversation)).toBe(0);

    const retry = await ask(conversation, stream);
    expect(retry.error).toBeUndefined();
    expect(retry.action).toBe('compacted');
    expect(h.fake.summarizerRequests()).toHaveLength(summarizerCalls + 2);
    expect(await storedCheckpoints(h.recap.url, conversation)).toBe(1);
  });
});

describe('the client leaves', () => {
  it('mid-stream of a compacting turn: the upstream request is cancelled and nothing is stored', async () => {
    h.fake.setOptions({ chunkDelayMs: 100 });
    const seen = await ask('leaves-mid-stream', true, { leaveAfterFirstToken: true });
    h.fake.setOptions({ chunkDelayMs: 0 });
    expect(seen.action).toBe('compacted');
    expect(seen.text).not.toBe('');
    await expect.poll(() => h.fake.chatRequests().at(-1)!.closedEarly).toBe(true);
    expect(await storedCheckpoints(h.recap.url, 'leaves-mid-stream')).toBe(0);
  });
});

describe('silence and keep-alives', () => {
  const plain = (stream: boolean) => ({
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
    body: JSON.stringify({ model: 'gpt-test-1', messages: [{ role: 'user', content: 'hello' }], stream }),
  });

  it('ends a silent stream with the bytes the upstream sent, then one error event in OpenAI shape, never [DONE]', async () => {
    h.fake.enqueue({ ...story, stall: { ms: SILENCE_MS, afterEvents: 2 } });
    const res = await fetch(`${h.recap.url}/v1/chat/completions`, plain(true));
    const text = await res.text();
    const sent = h.fake.sentBytes(h.fake.chatRequests().at(-1)!).toString();
    expect(res.status).toBe(200);
    expect(text.startsWith(sent)).toBe(true);
    const added = text.slice(sent.length);
    expect(added).toMatch(/^data: \{.*\}\n\n$/);
    expect(JSON.parse(added.slice('data: '.length))).toEqual({
      error: { message: expect.stringContaining('timed out'), type: 'api_error', param: null, code: 'upstream_timeout' },
    });
    expect(text).not.toContain('[DONE]');
  });

  it('keeps a stream open past the idle timeout while the upstream sends SSE comment pings', async () => {
    h.fake.enqueue({ ...story, stall: { ms: PINGED_SILENCE_MS, afterEvents: 2, pingEveryMs: IDLE_MS / 3 } });
    const res = await fetch(`${h.recap.url}/v1/chat/completions`, plain(true));
    const text = await res.text();
    expect(text).toBe(h.fake.sentBytes(h.fake.chatRequests().at(-1)!).toString());
    expect(text).toContain(': ping\n\n');
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  it('answers 504 in OpenAI shape when the upstream sends no headers in time', async () => {
    h.fake.enqueue({ delayMs: 3_000 });
    const res = await fetch(`${h.recap.url}/v1/chat/completions`, plain(false));
    expect(res.status).toBe(504);
    expect(await res.json()).toMatchObject({ error: { code: 'upstream_timeout', type: 'api_error', message: expect.stringContaining('response headers') } });
  });
});
