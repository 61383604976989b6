import type OpenAI from 'openai';
import type { FakeUpstream, RecordedRequest, ScriptedReply } from '../../src/dev/fake-upstream.js';

// A long tool-using task already done, as a client resends it: each step reads a file whose
// content carries a marker of its own (MARKER-<tag>-<step>), big enough that recap clears the early
// results and, with enough steps, summarizes them. The fake upstream answers a recall's result by
// quoting the first marker it finds in it, as a model would answer from what it got back.

type Msg = OpenAI.Chat.Completions.ChatCompletionMessageParam;

export const RECALL_MODEL = 'gpt-test-recall';

export function recallModel(recall: Record<string, unknown> = {}, window = { context_window: 5000, max_output_tokens: 500 }) {
  return {
    match: RECALL_MODEL,
    ...window,
    compaction: { strategy: 'summarize', summarizer: { model: 'gpt-test-summarizer' }, summary_max_tokens: 200, clear_tool_results: { keep_last_steps: 2, min_tokens: 100 } },
    recall,
  };
}

export function marker(tag: string, step: number): string {
  return `MARKER-${tag}-${step}`;
}

/** About 450 tokens of file content around the step's marker. */
export function fileContent(tag: string, step: number): string {
  const lines = Array.from({ length: 24 }, (_, i) => `  line ${i}: const value_${step}_${i} = compute(${i}, "${tag}") // step ${step}`);
  lines.splice(12, 0, `  export const ID = "${marker(tag, step)}";`);
  return `// src/module_${step}.ts\n${lines.join('\n')}`;
}

export function taskHistory(tag: string, steps: number): Msg[] {
  const messages: Msg[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: `Task ${tag}: read every module and report the ids.` },
  ];
  for (let step = 0; step < steps; step++) {
    const id = `call_${tag}_${step}`;
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [{ id, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: `src/module_${step}.ts` }) } }],
    });
    messages.push({ role: 'tool', tool_call_id: id, content: fileContent(tag, step) });
  }
  return messages;
}

export const READ_FILE_TOOL = {
  type: 'function',
  function: { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
} as const;

/** The fake answers a request whose last message is a recall's result with the marker it carries (or says none). */
export function answerFromRecall(fake: FakeUpstream): void {
  fake.setDefault((req: RecordedRequest): ScriptedReply | undefined => {
    if (req.json?.model !== RECALL_MODEL) return undefined;
    const last = req.json.messages?.at(-1);
    if (last?.role !== 'tool' || typeof last.content !== 'string' || !last.content.startsWith('recap_recall:')) return undefined;
    // Past the result's first line, which repeats the query.
    const found = /MARKER-[A-Za-z0-9]+-\d+/.exec(last.content.split('\n').slice(1).join('\n'));
    return { content: found ? `The id is ${found[0]}.` : 'I could not find it.' };
  });
}

export function recallCall(args: unknown): { name: string; arguments: string } {
  return { name: 'recap_recall', arguments: typeof args === 'string' ? args : JSON.stringify(args) };
}

/** The tool messages recap answered recalls with, in a forwarded request. */
export function recallResults(req: RecordedRequest): string[] {
  const messages = (req.json?.messages ?? []) as { role: string; content?: string; tool_call_id?: string }[];
  return messages.filter((m) => m.role === 'tool' && typeof m.content === 'string' && m.content.startsWith('recap_recall:')).map((m) => m.content!);
}

export function toolNames(req: RecordedRequest): string[] {
  return ((req.json?.tools ?? []) as { function?: { name?: string } }[]).map((t) => t.function?.name ?? '?');
}
