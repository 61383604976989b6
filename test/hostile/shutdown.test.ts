import net from 'node:net';
import OpenAI from 'openai';
import { afterAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../../src/dev/fake-upstream.js';
import { testConfig } from '../helpers/harness.js';
import { startRecapProcess, writeConfigFile } from '../helpers/recap-process.js';

// SIGTERM on a recap process with streams open: it stops accepting connections at once, lets the
// open streams finish within server.shutdown_grace_ms, cuts whatever is still open when the grace
// ends (a broken stream, never a clean end), and exits 0.

const GRACE_MS = 2_000;
const CHUNK_MS = 75;
const SHORT = Array.from({ length: 8 }, (_, i) => `w${i} `);
const LONG = Array.from({ length: 200 }, (_, i) => `l${i} `);

let fake: FakeUpstream | undefined;
afterAll(async () => fake?.close());

interface Reader {
  started: Promise<void>;
  done: Promise<{ text: string; error?: unknown; at: number }>;
}

function readStream(client: OpenAI, content: string): Reader {
  let started!: () => void;
  const startedP = new Promise<void>((r) => (started = r));
  const done = (async () => {
    let text = '';
    try {
      const stream = await client.chat.completions.create({ model: 'gpt-test-1', messages: [{ role: 'user', content }], stream: true });
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content ?? '';
        if (text) started();
      }
      return { text, at: performance.now() };
    } catch (error) {
      started();
      return { text, error, at: performance.now() };
    }
  })();
  return { started: startedP, done };
}

function connectOutcome(port: number): Promise<'connected' | 'refused'> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED' ? 'refused' : 'connected'));
  });
}

describe('SIGTERM with 20 open streams', () => {
  it('refuses new connections, finishes the streams within the grace, cuts the one past it, and exits 0', async () => {
    fake = await startFakeUpstream({ chunkDelayMs: CHUNK_MS });
    fake.setDefault((req) => ({ stream: { chunks: (req.json as { messages: { content: string }[] }).messages[0]!.content === 'long' ? LONG : SHORT } }));
    const config = testConfig(fake, { extra: { server: { shutdown_grace_ms: GRACE_MS } } });
    const file = await writeConfigFile(config);
    const recap = await startRecapProcess(file.file);
    try {
      const client = new OpenAI({ baseURL: `${recap.url}/v1`, apiKey: 'sk-test-key', maxRetries: 0 });
      const port = Number(new URL(recap.url).port);
      const short = Array.from({ length: 20 }, (_, i) => readStream(client, `short ${i}`));
      const long = readStream(client, 'long');
      await Promise.all([...short, long].map((s) => s.started));

      const exited = recap.stop('SIGTERM').then((code) => ({ code, at: performance.now() }));
      let refusedAt = 0;
      while (!refusedAt) if ((await connectOutcome(port)) === 'refused') refusedAt = performance.now();

      const finished = await Promise.all(short.map((s) => s.done));
      for (const r of finished) {
        expect(r.error).toBeUndefined();
        expect(r.text).toBe(SHORT.join(''));
      }
      const lastShortAt = Math.max(...finished.map((r) => r.at));
      // Refused while the streams were still going, not merely once the process was gone.
      expect(refusedAt).toBeLessThan(lastShortAt);

      // The long stream (15 s upstream) is cut when the grace ends: broken, its upstream request cancelled.
      const cut = await long.done;
      expect(cut.error).toBeInstanceOf(Error);
      expect(cut.text.length).toBeLessThan(LONG.join('').length);
      const longUpstream = fake.chatRequests().find((r) => r.json.messages[0].content === 'long')!;
      await expect.poll(() => longUpstream.closedEarly).toBe(true);

      const { code, at } = await exited;
      expect(code).toBe(0);
      expect(at).toBeGreaterThan(lastShortAt);
      expect(fake.chatRequests()).toHaveLength(21);
    } finally {
      await recap.stop('SIGKILL');
      await file.cleanup();
    }
  });
});
