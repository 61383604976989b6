// The big bodies of the hardening bench (issue 18): what an attack or a careless client sends.
// Deterministic; each builds the JSON text of one chat request for `model`.

function logLine(i: number): string {
  return `2026-05-0${(i % 9) + 1}T12:${String(i % 60).padStart(2, '0')}:07.123Z INFO api.request id=req_${(i * 7919) % 1000003} path=/v1/items/${i} status=200 latency_ms=${i % 97}`;
}

/** A pasted log of about `bytes` in the first round (lines ending in `eol`), then a few short rounds: the log is evicted. */
export function pastedLogBody(model: string, bytes: number, eol = '\n'): string {
  const lines: string[] = [];
  for (let i = 0, n = 0; n < bytes; i++) {
    const line = logLine(i);
    lines.push(line);
    n += line.length + eol.length;
  }
  const messages: unknown[] = [
    { role: 'system', content: 'You are an ops assistant.' },
    { role: 'user', content: `Here is the log:${eol}${lines.join(eol)}` },
    { role: 'assistant', content: 'Looks fine.' },
  ];
  for (let t = 0; t < 4; t++) messages.push({ role: 'user', content: `question ${t}` }, { role: 'assistant', content: `answer ${t}` });
  messages.push({ role: 'user', content: 'and now?' });
  return JSON.stringify({ model, messages });
}

/** One assistant message with `calls` parallel tool calls (no results), in an old round. */
export function parallelCallsBody(model: string, calls: number): string {
  const toolCalls = Array.from({ length: calls }, (_, i) => ({ id: `c${i}`, type: 'function', function: { name: 'read', arguments: `{"f":${i}}` } }));
  const messages: unknown[] = [
    { role: 'system', content: 'agent' },
    { role: 'user', content: 'do the task' },
    { role: 'assistant', content: null, tool_calls: toolCalls },
  ];
  for (let t = 0; t < 4; t++) messages.push({ role: 'user', content: `next ${t}` }, { role: 'assistant', content: `fine ${t}` });
  messages.push({ role: 'user', content: 'done?' });
  return JSON.stringify({ model, messages });
}

/** An agent's task: one user message, then `steps` tool calls each with its result. */
export function toolStepsBody(model: string, steps: number): string {
  const messages: unknown[] = [
    { role: 'system', content: 'agent' },
    { role: 'user', content: 'do the task' },
  ];
  for (let i = 0; i < steps; i++) {
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: `call_${i}`, type: 'function', function: { name: 'read_file', arguments: `{"path":"/src/f${i}.ts"}` } }],
    });
    messages.push({ role: 'tool', tool_call_id: `call_${i}`, content: `file ${i}: ok` });
  }
  messages.push({ role: 'user', content: 'done?' });
  return JSON.stringify({ model, messages });
}

/** A content part carrying an object of `keys` keys (in no sorted order). */
export function wideObjectBody(model: string, keys: number): string {
  const meta: Record<string, number> = {};
  for (let i = 0; i < keys; i++) meta[`k${(i * 7919) % keys}`] = i;
  const messages: unknown[] = [{ role: 'user', content: [{ type: 'text', text: 'see the attached metadata', meta }] }];
  return JSON.stringify({ model, messages });
}
