// The overhead bench's growing conversation: an agent's history (a system prompt, one task, then
// tool steps with 1–8 KB results, agent-task-script.ts) grown to a byte size, and the requests an
// agent sends from there, each one new message longer than the one before (a step's reply with
// its tool call, then the call's result, ...). A pass starts again from the same history with new
// messages of its own (a branch of the conversation), so that a target sees many requests of
// one size without the history growing out of it. Bodies are built by joining the messages'
// JSON, as the client's SDK would write them, without serializing megabytes again per request.
import { agentScript, SYSTEM_PROMPT, TASK, TOOLS } from './agent-task-script.js';
import { prng } from './prng.js';

export interface GrowthHistory {
  /** The model the size's requests name (its own config entry: the window fits the history). */
  model: string;
  /** Each message of the history, as JSON. */
  messages: string[];
  bytes: number;
}

const ID_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** The history of about `targetBytes`: the task and as many scripted tool steps as fit. */
export function growthHistory(model: string, targetBytes: number, seed: number): GrowthHistory {
  const messages = [JSON.stringify({ role: 'system', content: SYSTEM_PROMPT }), JSON.stringify(TASK)];
  let bytes = messages.reduce((n, m) => n + m.length + 1, 0);
  // Enough steps for the biggest size; the script is made lazily in chunks.
  for (let chunk = 0; bytes < targetBytes; chunk++) {
    for (const step of agentScript(seed + chunk, 200)) {
      if (bytes >= targetBytes) break;
      const calls = step.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
      const out = [JSON.stringify({ role: 'assistant', content: step.note, tool_calls: calls })];
      for (const c of step.calls) out.push(JSON.stringify({ role: 'tool', tool_call_id: c.id, content: c.result }));
      for (const m of out) bytes += m.length + 1;
      messages.push(...out);
    }
  }
  return { model, messages, bytes };
}

/**
 * The messages one pass adds, one per request: a short note with one tool call, then that call's
 * result (a few lines of a test run), and so on. Small, as most of an agent's steps are next to
 * its history; new for every `seed`.
 */
export function newMessages(count: number, seed: number): string[] {
  const rand = prng(seed);
  const n = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
  const out: string[] = [];
  let callId = '';
  for (let i = 0; i < count; i++) {
    if (i % 2 === 0) {
      callId = `call_${Array.from({ length: 24 }, () => ID_CHARS[n(0, ID_CHARS.length - 1)]).join('')}`;
      const args = JSON.stringify({ command: `npm test -- settlement --grep BATCH-${n(20000, 29999)}` });
      out.push(
        JSON.stringify({
          role: 'assistant',
          content: `Re-running the settlement tests (${seed}.${i}).`,
          tool_calls: [{ id: callId, type: 'function', function: { name: 'run_command', arguments: args } }],
        }),
      );
    } else {
      const lines = Array.from(
        { length: n(3, 10) },
        () => `  PASS test/settlement/reconcile.test.ts > settles BATCH-${n(20000, 29999)} for mch_${n(10000, 99999)} (${n(2, 90)} ms)`,
      );
      out.push(JSON.stringify({ role: 'tool', tool_call_id: callId, content: lines.join('\n') }));
    }
  }
  return out;
}

const TOOLS_JSON = JSON.stringify(TOOLS);

/** A chat request of the history followed by `added`, with the agent's tools. */
export function growthBody(history: GrowthHistory, added: readonly string[]): Buffer {
  const messages = added.length === 0 ? history.messages : [...history.messages, ...added];
  return Buffer.from(`{"model":${JSON.stringify(history.model)},"messages":[${messages.join(',')}],"tools":${TOOLS_JSON}}`);
}
