import { agentScript, REMINDER, type ScriptedStep, SYSTEM_PROMPT as AGENT_SYSTEM, TASK, TOOLS } from './agent-task-script.js';
import { type BenchMessage, type Drive, startBenchRecap } from './bench-recap.js';
import { conversationScript, SYSTEM_PROMPT as CHAT_SYSTEM } from './long-conversation-script.js';

// The two conversations of bench cache-cost, played through one recap in front of the fake
// upstream without simulated latency (what is measured is what went upstream, not time): the
// agent task (one task, tool steps with 1–8 KB results) and the long chat (user turns with a tool
// exchange every few turns), as the agent-task and long-conversation benches play them.

export interface Conversation {
  name: string;
  model: string;
  contextWindow: number;
  maxOutputTokens: number;
  /** Steps (agent) or turns (chat). */
  length: number;
  seed: number;
}

export const AGENT: Conversation = { name: 'agent-task', model: 'gpt-bench-agent', contextWindow: 65_536, maxOutputTokens: 4_096, length: 150, seed: 20240611 };
/** The agent task cut short on a big window: it never has to be compacted; a cut must pay back or not happen. */
export const SHORT_AGENT: Conversation = { name: 'short-agent-task', model: 'gpt-bench-agent-200k', contextWindow: 200_000, maxOutputTokens: 4_096, length: 40, seed: 20240611 };
export const CHAT: Conversation = { name: 'long-chat', model: 'gpt-bench-chat', contextWindow: 32_768, maxOutputTokens: 4_096, length: 300, seed: 20240501 };
export const SUMMARIZER_MODEL = 'gpt-bench-summarizer';

export interface DriveSetup {
  /** Names the run (its conversation id). */
  name: string;
  compaction: Record<string, unknown>;
  pricing?: Record<string, number>;
}

function agentReply(step: ScriptedStep | null, index: number, model: string): object {
  const message =
    step === null
      ? { role: 'assistant', content: 'PAY-4411 is fixed, with a regression test.', refusal: null }
      : {
          role: 'assistant',
          content: step.note,
          refusal: null,
          tool_calls: step.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
        };
  return {
    id: `chatcmpl-cache-cost-${index}`,
    object: 'chat.completion',
    created: 1_718_000_000 + index,
    model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: step === null ? 'stop' : 'tool_calls' }],
  };
}

export async function drive(c: Conversation, setup: DriveSetup): Promise<Drive> {
  const bench = await startBenchRecap({
    name: `${c.name}-${setup.name}`,
    model: c.model,
    summarizerModel: SUMMARIZER_MODEL,
    contextWindow: c.contextWindow,
    maxOutputTokens: c.maxOutputTokens,
    mainLatencyMs: 0,
    summarizerLatencyMs: 0,
    compaction: setup.compaction,
    // Inline only: what a background job prepares is the same call, made earlier.
    backgroundEnabled: false,
    ...(setup.pricing ? { pricing: setup.pricing } : {}),
  });
  try {
    if (c !== CHAT) {
      const script = agentScript(c.seed, c.length);
      const history: BenchMessage[] = [{ role: 'system', content: AGENT_SYSTEM }, TASK];
      for (let i = 0; i <= script.length; i++) {
        const step = script[i] ?? null;
        bench.fake.enqueue({ body: agentReply(step, i + 1, c.model) });
        const reply = await bench.send([...history], { tools: TOOLS });
        const message = reply.choices[0]?.message;
        if (!message || step === null) break;
        history.push(message);
        for (const call of step.calls) history.push({ role: 'tool', tool_call_id: call.id, content: call.result });
        if (i + 1 === Math.floor(c.length / 2)) history.push(REMINDER);
      }
    } else {
      const history: BenchMessage[] = [{ role: 'system', content: CHAT_SYSTEM }];
      for (const step of conversationScript(c.seed, c.length)) {
        history.push(...step.toolExchange, step.user);
        const reply = await bench.send([...history]);
        history.push({ role: 'assistant', content: reply.choices[0]?.message.content ?? '' });
      }
    }
    return await bench.finish();
  } finally {
    await bench.close();
  }
}
