import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import type OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeUpstream } from '../../src/dev/fake-upstream.js';
import { startRecap } from '../../src/main.js';
import { createLogger } from '../../src/observability/logger.js';
import { prose } from '../helpers/conversation.js';
import { type Harness, LogCapture, SUMMARIZER, smallModel, startHarness, testConfig } from '../helpers/harness.js';

// Issue 18 item 5: a background job must not keep the client's credential once its request is done.
// When the summarizer's upstream has its own key, no job holds the client's Authorization at all;
// when it has none, the summarizer call must authenticate as the client, so the queued job holds
// that one header value until it has run (docs/reliability-and-security.md, Secrets), and nothing holds it afterwards. The
// heap snapshot (which collects garbage first) is this process's: recap runs in it.

type Msg = OpenAI.Chat.Completions.ChatCompletionMessageParam;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/**
 * Whether the heap holds `secret` as hex text; the text is made only after the snapshot is written.
 * Polled: what finishes a request after its reply (store writes, the request log) lets go of it
 * a moment after the client has its answer.
 */
async function heapHolds(secret: Buffer): Promise<boolean> {
  const file = join(mkdtempSync(join(tmpdir(), 'recap-heap-')), 'snapshot.heapsnapshot');
  try {
    writeHeapSnapshot(file);
    return readFileSync(file, 'latin1').includes(secret.toString('hex'));
  } finally {
    rmSync(dirname(file), { recursive: true, force: true });
  }
}

/**
 * One chat request on a connection of its own, closed after the reply: a client that keeps
 * connections (fetch, the SDK) would itself hold the credential in this process's heap.
 */
function chat(url: string, secret: Buffer, messages: Msg[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const headers = { authorization: `Bearer ${keyOf(secret)}`, 'content-type': 'application/json', 'x-conversation-id': 'bg-secret', connection: 'close' };
    const req = request(`${url}/v1/chat/completions`, { method: 'POST', agent: false, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      // Resolved once the connection is gone, so that nothing of this request is left on the client side.
      req.on('close', () => resolve((JSON.parse(Buffer.concat(chunks).toString()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content));
    });
    req.on('error', reject);
    req.end(JSON.stringify({ model: 'gpt-test-small', messages }));
  });
}

/** Turns of a conversation until one is past the prepare line, so a background job is queued. */
async function turnsUntilPrepared(harness: Harness, secret: Buffer): Promise<void> {
  const messages: Msg[] = [{ role: 'system', content: 'ops' }];
  for (let t = 1; t <= 24; t++) {
    messages.push({ role: 'user', content: prose(t) });
    messages.push({ role: 'assistant', content: await chat(harness.recap.url, secret, messages) });
    if (harness.fake.summarizerRequests().length > 0) return;
  }
  throw new Error('no background job was ever started');
}

/**
 * Waits for what a request does after its reply (its event and log line, written in batches) to
 * be done: a snapshot taken before finds the credential still held and has to be taken again,
 * several seconds of CPU each.
 */
async function settled(harness: Harness): Promise<void> {
  await harness.recap.runtime.events.idle();
  await new Promise((r) => setTimeout(r, 100));
}

// A snapshot of this process holds the tokenizers' rank tables (~400,000 strings): writing one takes
// seconds, over ten on a loaded 2-core machine, so the tests wait for it rather than for a deadline.
const SNAPSHOT_MS = 90_000;

// The test keeps the client's key as bytes only: a string of it alive in the test would be found.
const keyOf = (secret: Buffer) => `sk-client-${secret.toString('hex')}`;

describe('a background job and the client credential', () => {
  it(
    'holds none when the summarizer upstream has its own key, even while the job runs',
    async () => {
      // The job's summarizer call outlasts the test: closing recap at the end cancels it.
      const fake = await startFakeUpstream({ summarizerModel: SUMMARIZER, summarizerLatencyMs: 60_000 });
      // The model's upstream takes the client's key; the summarizer's has recap's own.
      const config = testConfig(fake, {
        models: [smallModel({ summarizer: { model: SUMMARIZER, upstream: 'keyed' } })],
        extra: { upstreams: { fake: { base_url: fake.url }, keyed: { base_url: fake.url, api_key: 'sk-recap-own-summarizer-key' } } },
      });
      const recap = await startRecap(config, { port: 0, host: '127.0.0.1', logger: createLogger('info', new LogCapture()) });
      h = { fake, recap, logs: new LogCapture(), client: () => undefined as never, close: async () => (await recap.close(), await fake.close()) };
      const secret = randomBytes(16);
      await turnsUntilPrepared(h, secret);
      // The job is running: its summarizer call is held. The fake's own records go first.
      expect(h.fake.summarizerRequests().at(-1)!.headers.authorization).toBe('Bearer sk-recap-own-summarizer-key');
      h.fake.reset();
      await settled(h);
      await expect.poll(() => heapHolds(secret), { timeout: SNAPSHOT_MS, interval: 100 }).toBe(false);
      // ...while the job still runs.
      expect((await h.recap.runtime.metrics.backgroundRunning.get()).values[0]?.value).toBe(1);
    },
    2 * SNAPSHOT_MS,
  );

  it(
    'holds the Authorization only until the job has run when the summarizer must authenticate as the client',
    async () => {
      h = await startHarness({ fake: { summarizerModel: SUMMARIZER, summarizerLatencyMs: 300 }, models: [smallModel()] });
      const secret = randomBytes(16);
      await turnsUntilPrepared(h, secret);
      await h.recap.runtime.background.idle();
      // The job's summarizer call was made as the client; once it has run, nothing keeps the credential.
      expect(h.fake.summarizerRequests().at(-1)!.headers.authorization === `Bearer ${keyOf(secret)}`).toBe(true);
      h.fake.reset();
      await settled(h);
      await expect.poll(() => heapHolds(secret), { timeout: SNAPSHOT_MS, interval: 100 }).toBe(false);
    },
    2 * SNAPSHOT_MS,
  );
});
