import { agentScript, REMINDER, type ScriptedStep, SYSTEM_PROMPT, TASK, TOOLS } from './agent-task-script.js';
import {
  CONTEXT_WINDOW,
  MAIN_LATENCY_MS,
  MAX_OUTPUT_TOKENS,
  MODEL,
  REMINDER_AFTER_STEP,
  SEED,
  STEPS,
  SUMMARIZER_LATENCY_MS,
  SUMMARIZER_MODEL,
  type Variant,
} from './agent-task-variants.js';
import { type BenchMessage, type Drive, startBenchRecap } from './bench-recap.js';

// Plays the task as an agent harness does, through the official SDK against one recap in front of
// one fake upstream (bench-recap.ts): send the whole history with the tools, append the model's
// reply as the SDK returned it, run its tool calls (the scripted results), repeat; after the last
// step the model answers in text. The fake answers each request with the next scripted step,
// written out in full so that the call ids are the script's (the fake's own ids would depend on
// how many summarizer calls it has served).

function completion(step: ScriptedStep | null, index: number): object {
  const message =
    step === null
      ? { role: 'assistant', content: 'PAY-4411 is fixed: settlement amounts are rounded half-even before the ledger comparison, with a regression test.', refusal: null }
      : {
          role: 'assistant',
          content: step.note,
          refusal: null,
          tool_calls: step.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
        };
  // No usage block: the reply is written before the request it answers arrives, and recap reads
  // usage only to calibrate models without a tiktoken encoding.
  return {
    id: `chatcmpl-agent-task-${index}`,
    object: 'chat.completion',
    created: 1_718_000_000 + index,
    model: MODEL,
    choices: [{ index: 0, message, logprobs: null, finish_reason: step === null ? 'stop' : 'tool_calls' }],
  };
}

export async function driveAgentTask(variant: Variant): Promise<Drive> {
  const script = agentScript(SEED, STEPS);
  const bench = await startBenchRecap({
    name: `agent-task-${variant.name}`,
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
    const history: BenchMessage[] = [{ role: 'system', content: SYSTEM_PROMPT }, TASK];
    for (let i = 0; i <= script.length; i++) {
      const step = script[i] ?? null;
      bench.fake.enqueue({ body: completion(step, i + 1) });
      const reply = await bench.send([...history], { tools: TOOLS });
      const message = reply.choices[0]?.message;
      if (!message) throw new Error(`request ${i + 1} got no choice back`);
      if (step === null) break;
      history.push(message);
      const calls = message.tool_calls ?? [];
      if (calls.length !== step.calls.length) throw new Error(`step ${i + 1}: the SDK returned ${calls.length} tool calls, the script has ${step.calls.length}`);
      for (const call of step.calls) history.push({ role: 'tool', tool_call_id: call.id, content: call.result });
      if (i + 1 === REMINDER_AFTER_STEP) history.push(REMINDER);
    }
    return await bench.finish();
  } finally {
    await bench.close();
  }
}
