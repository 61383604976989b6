import OpenAI from 'openai';
import { type FakeUpstream, type FakeUpstreamOptions, startFakeUpstream } from '../../src/dev/fake-upstream.js';
import { type HarnessConfigOptions, testConfig } from './harness.js';
import { type RecapProcess, startRecapProcesses } from './recap-process.js';

// recap as deployed for a test: one in-process server, or two `recap serve` processes sharing one
// Redis (replicas behind a load balancer). Requests are spread over the replicas in turn.

export interface Deployment {
  fake: FakeUpstream;
  urls: string[];
  /** An SDK client for request number `n` (replicas take turns), naming `conversation` when given. */
  client(n: number, conversation?: string): OpenAI;
  /** Resolves once no replica has a background job queued or running. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

export type DeploymentKind = 'one process' | 'two processes on one Redis';

async function gauge(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

export async function startDeployment(kind: DeploymentKind, fakeOptions: FakeUpstreamOptions, config: HarnessConfigOptions): Promise<Deployment> {
  const fake = await startFakeUpstream(fakeOptions);
  const processes: RecapProcess[] = [];
  try {
    const storeUrl = kind === 'one process' ? undefined : (process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    const conf = testConfig(fake, { ...config, ...(storeUrl ? { storeUrl } : {}) });
    const replicas = kind === 'one process' ? 1 : 2;
    processes.push(...(await startRecapProcesses(Array.from({ length: replicas }, () => conf))));
  } catch (err) {
    await Promise.all(processes.map((p) => p.stop()));
    await fake.close();
    throw err;
  }
  const urls = processes.map((p) => p.url);
  return {
    fake,
    urls,
    client: (n, conversation) =>
      new OpenAI({ baseURL: `${urls[n % urls.length]}/v1`, apiKey: 'sk-agentic', maxRetries: 0, defaultHeaders: conversation ? { 'x-conversation-id': conversation } : {} }),
    async settled() {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const busy = await Promise.all(urls.map(async (u) => (await gauge(u, 'recap_background_jobs_queued')) + (await gauge(u, 'recap_background_jobs_running'))));
        if (busy.every((b) => b === 0)) return;
        if (Date.now() > deadline) throw new Error('background jobs did not settle');
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async close() {
      await Promise.all(processes.map((p) => p.stop()));
      await fake.close();
    },
  };
}
