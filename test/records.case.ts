import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUMMARY_MARKER } from '../src/compaction/summary-message.js';
import { type FakeUpstream, startFakeUpstream } from '../src/dev/fake-upstream.js';
import { prose } from './helpers/conversation.js';
import { testConfig, SUMMARIZER, smallModel } from './helpers/harness.js';
import { type RecapProcess, startRecapProcess, startRecapProcesses, writeConfigFile } from './helpers/recap-process.js';

// Issue 5's acceptance, run against one Redis deployment (standalone or cluster) by two recap
// processes sharing it. The in-memory store is covered by the in-process tests.

type Msg = OpenAI.Chat.Completions.ChatCompletionMessageParam;
const MODEL = 'gpt-test-small';

export function runRecordCases(name: string, redis: () => Promise<{ url: string; stop(): Promise<void> }>): void {
  describe(`conversation records on ${name}`, () => {
    let fake: FakeUpstream;
    let stopRedis: () => Promise<void>;
    let configFile: { file: string; cleanup(): Promise<void> };
    let a: RecapProcess;
    let b: RecapProcess;

    beforeAll(async () => {
      const r = await redis();
      stopRedis = r.stop;
      fake = await startFakeUpstream({ summarizerModel: SUMMARIZER, summarizerLatencyMs: 300 });
      const config = testConfig(fake, {
        storeUrl: r.url,
        extra: { background: { enabled: false } },
        models: [smallModel()],
      });
      configFile = await writeConfigFile(config);
      [a, b] = await startRecapProcesses([configFile.file, configFile.file]);
    }, 60_000);

    afterAll(async () => {
      await Promise.all([a?.stop(), b?.stop()]);
      await fake?.close();
      await configFile?.cleanup();
      await stopRedis?.();
    });

    const client = (p: RecapProcess, conversation: string, apiKey = 'sk-tenant-a') =>
      new OpenAI({ baseURL: `${p.url}/v1`, apiKey, maxRetries: 0, defaultHeaders: { 'x-conversation-id': conversation } });

    async function turn(c: OpenAI, messages: Msg[]) {
      const { data, response } = await c.chat.completions.create({ model: MODEL, messages }).withResponse();
      return { reply: data.choices[0]!.message.content ?? '', action: response.headers.get('x-recap-action') };
    }

    it('reuses a checkpoint on every later turn, across processes and a restart', async () => {
      const conv = `reuse-${name}`;
      const messages: Msg[] = [{ role: 'system', content: 'You help the ops team.' }];
      const actions: string[] = [];
      for (let t = 1; t <= 40; t++) {
        messages.push({ role: 'user', content: prose(t) });
        // Alternate between the two replicas: the record lives in Redis, not in either process.
        const { reply, action } = await turn(client(t % 2 ? a : b, conv), messages);
        actions.push(action!);
        messages.push({ role: 'assistant', content: reply });
      }
      const firstCompaction = actions.indexOf('compacted');
      expect(firstCompaction).toBeGreaterThan(0);
      const after = actions.slice(firstCompaction + 1);
      expect(after.every((x) => x === 'reused' || x === 'compacted')).toBe(true);
      expect(after.filter((x) => x === 'reused').length).toBeGreaterThan(after.length / 2);
      const compactions = actions.filter((x) => x === 'compacted').length;
      expect(fake.summarizerRequests().length).toBe(compactions);

      // A new process on the same Redis finds the checkpoint: reused, no summarizer call.
      await a.stop();
      a = await startRecapProcess(configFile.file);
      const calls = fake.summarizerRequests().length;
      messages.push({ role: 'user', content: prose(41) });
      expect((await turn(client(a, conv), messages)).action).toBe('reused');
      expect(fake.summarizerRequests().length).toBe(calls);
    });

    it('ignores a checkpoint after an edit inside its span, keeps it after later edits and regenerations', async () => {
      const conv = `edit-${name}`;
      const messages: Msg[] = [{ role: 'system', content: 'You help the ops team.' }];
      let last = '';
      for (let t = 1; t <= 24 && last !== 'compacted'; t++) {
        messages.push({ role: 'user', content: prose(t) });
        const r = await turn(client(a, conv), messages);
        last = r.action!;
        messages.push({ role: 'assistant', content: r.reply });
      }
      expect(last).toBe('compacted');
      messages.push({ role: 'user', content: prose(100) });
      expect((await turn(client(b, conv), messages)).action).toBe('reused');
      // Regenerating the last answer sends the same prefix again.
      expect((await turn(client(a, conv), messages)).action).toBe('reused');

      const editedLate = messages.map((m, i) => (i === messages.length - 2 ? { ...m, content: 'edited late reply' } : m)) as Msg[];
      expect((await turn(client(a, conv), editedLate)).action).toBe('reused');

      const calls = fake.summarizerRequests().length;
      // The second question: the first is the opening task, kept verbatim in every view (rule 1), never summarized.
      const editedEarly = messages.map((m, i) => (i === 3 ? { role: 'user' as const, content: 'an edited second question' } : m)) as Msg[];
      const r = await turn(client(b, conv), editedEarly);
      expect(r.action).toBe('compacted');
      expect(fake.summarizerRequests().length).toBe(calls + 1);
      const forwarded = fake.chatRequests().at(-1)!.body;
      expect(fake.summarizerRequests().at(-1)!.body).toContain('an edited second question');
      expect(forwarded).toContain(SUMMARY_MARKER);
    });

    it("never lets another tenant see a conversation's summary", async () => {
      const conv = `tenant-${name}`;
      const messages: Msg[] = [{ role: 'system', content: 'You help the ops team.' }];
      let last = '';
      for (let t = 1; t <= 24 && last !== 'compacted'; t++) {
        messages.push({ role: 'user', content: `${prose(t)} SECRET-A-${t}` });
        const r = await turn(client(a, conv, 'sk-tenant-a'), messages);
        last = r.action!;
        messages.push({ role: 'assistant', content: r.reply });
      }
      expect(last).toBe('compacted');
      const summaryOfA = fake.chatRequests().at(-1)!.json.messages[1].content as string;
      expect(summaryOfA.startsWith(SUMMARY_MARKER)).toBe(true);

      const other = await turn(client(b, conv, 'sk-tenant-b'), [{ role: 'user', content: 'hello, what did we discuss?' }]);
      expect(other.action).toBe('none');
      const bodyB = fake.chatRequests().at(-1)!.body;
      expect(bodyB).not.toContain(SUMMARY_MARKER);
      expect(bodyB).not.toContain('SECRET-A-');

      const inspectB = await fetch(`${b.url}/recap/v1/conversations/${conv}`, { headers: { authorization: 'Bearer sk-tenant-b' } });
      expect(inspectB.status).toBe(404);
      const inspectA = await fetch(`${b.url}/recap/v1/conversations/${conv}`, { headers: { authorization: 'Bearer sk-tenant-a' } });
      expect(inspectA.status).toBe(200);
    });

    it('makes one summarizer call for 50 concurrent over-budget requests on two processes', async () => {
      const conv = `burst-${name}`;
      const messages: Msg[] = [{ role: 'system', content: 'You help the ops team.' }];
      for (let t = 1; t <= 30; t++) messages.push({ role: 'user', content: prose(t) }, { role: 'assistant', content: `noted ${t}` });
      messages.push({ role: 'user', content: 'so, what now?' });
      const before = fake.summarizerRequests().length;
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => turn(client(i % 2 ? a : b, conv), messages)));
      expect(results.every((r) => r.reply.length > 0)).toBe(true);
      expect(fake.summarizerRequests().length - before).toBe(1);
      const counts = results.reduce<Record<string, number>>((acc, r) => ({ ...acc, [r.action!]: (acc[r.action!] ?? 0) + 1 }), {});
      expect(counts.compacted).toBe(1);
      expect(counts.reused).toBe(49);
      // One checkpoint: written provisionally by the compacting request, confirmed once (by whichever turn's 2xx came first).
      const record = (await (await fetch(`${a.url}/recap/v1/conversations/${conv}`, { headers: { authorization: 'Bearer sk-tenant-a' } })).json()) as {
        version: number;
        checkpoints: unknown[];
      };
      expect(record.version).toBe(2);
      expect(record.checkpoints).toHaveLength(1);
    });
  });
}
