import { type BenchMessage, type Drive, startBenchRecap } from './bench-recap.js';
import { conversationScript, SYSTEM_PROMPT } from './long-conversation-script.js';
import { CONTEXT_WINDOW, MAIN_LATENCY_MS, MAX_OUTPUT_TOKENS, MODEL, SEED, SUMMARIZER_LATENCY_MS, SUMMARIZER_MODEL, TURNS, type Variant } from './long-conversation-variants.js';

// Plays the scripted conversation through the official SDK against one recap in front of one fake
// upstream (bench-recap.ts): user turns, a tool exchange every few turns, the fake's own replies.

export async function driveConversation(variant: Variant): Promise<Drive> {
  const bench = await startBenchRecap({
    name: `long-conversation-${variant.name}`,
    model: MODEL,
    summarizerModel: SUMMARIZER_MODEL,
    contextWindow: CONTEXT_WINDOW,
    maxOutputTokens: MAX_OUTPUT_TOKENS,
    mainLatencyMs: MAIN_LATENCY_MS,
    summarizerLatencyMs: SUMMARIZER_LATENCY_MS,
    compaction: variant.compaction,
    backgroundEnabled: variant.backgroundEnabled,
  });
  try {
    const history: BenchMessage[] = [{ role: 'system', content: SYSTEM_PROMPT }];
    for (const step of conversationScript(SEED, TURNS)) {
      history.push(...step.toolExchange, step.user);
      const reply = await bench.send([...history]);
      history.push({ role: 'assistant', content: reply.choices[0]?.message.content ?? '' });
    }
    return await bench.finish();
  } finally {
    await bench.close();
  }
}
