import type { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import OpenAI from 'openai';
import { startFakeUpstream } from '../dev/fake-upstream.js';
import { createLogger } from '../observability/logger.js';
import { startRecap } from '../main.js';
import { DEMO_CONTEXT_WINDOW, DEMO_MODEL, DEMO_SUMMARIZER, demoConfig } from './demo-config.js';
import { driveConversation } from './drive.js';
import { summarizerCalls } from './summarizer-calls.js';
import { tableFooter } from './turn-table.js';

// `recap demo`: a compacting conversation with no API key and no network. A local fake upstream
// plays both the chat model and the summarizer; recap runs in this process with the in-memory
// store; the official OpenAI SDK drives it exactly as an application would.

export interface DemoOptions {
  turns?: number;
  out: Writable;
}

// A real summarizer takes a while; this makes inline compaction visible in the latency column.
const SUMMARIZER_LATENCY_MS = 300;
const MODEL_LATENCY_MS = 40;

export async function runDemo({ turns = 40, out }: DemoOptions): Promise<void> {
  if (!Number.isInteger(turns) || turns < 1) throw new Error(`--turns must be a positive integer, got ${turns}`);
  const fake = await startFakeUpstream({ summarizerModel: DEMO_SUMMARIZER, summarizerLatencyMs: SUMMARIZER_LATENCY_MS, latencyMs: MODEL_LATENCY_MS });
  try {
    const recap = await startRecap(demoConfig(fake.url), { port: 0, host: '127.0.0.1', logger: createLogger('silent') });
    try {
      out.write(
        `recap demo: ${turns} turns of an on-call conversation on ${DEMO_MODEL} (context window ${DEMO_CONTEXT_WINDOW} tokens),\n` +
          `fake upstream at ${fake.url}, recap at ${recap.url}, in-memory store, no API key.\n` +
          `compacted: a summary was written for this request (inline summarizer call); reused: a stored\n` +
          `summary was applied (from an earlier compaction or prepared in the background between turns).\n\n`,
      );
      const client = new OpenAI({
        baseURL: `${recap.url}/v1`,
        apiKey: 'sk-demo-not-a-real-key',
        maxRetries: 0,
        defaultHeaders: { 'x-conversation-id': 'demo-incident' },
      });
      const results = await driveConversation({
        client,
        turns,
        model: DEMO_MODEL,
        onReply: (content) => fake.enqueue({ content }),
        // Stands in for the user's reading and typing time, during which background compaction runs.
        betweenTurns: async () => {
          await sleep(50);
          await recap.runtime.background.idle();
        },
        out,
      });
      out.write(tableFooter(results, await summarizerCalls(recap.runtime.metrics)));
    } finally {
      await recap.close();
    }
  } finally {
    await fake.close();
  }
}
