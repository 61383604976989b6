// The growth table's conversation in the Responses API's shape (POST /v1/responses, a stateless
// `input`), for overhead-ab.ts's AB_ROUTE=responses: each chat message as the items Codex and the
// Agents SDK send for it (a message item; a tool call as a `function_call` item after the step's
// note; a result as a `function_call_output`), the tools without chat's `function` wrapper. Each
// message string is converted once, so that a request costs a join, as a chat one does.
import { TOOLS } from './agent-task-script.js';
import type { GrowthHistory } from './overhead-growth-bodies.js';

interface ChatMessage {
  role: string;
  content?: string | null;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

const converted = new Map<string, string>();

function asItems(json: string): string {
  let items = converted.get(json);
  if (items === undefined) {
    const m = JSON.parse(json) as ChatMessage;
    const out: unknown[] = [];
    if (m.role === 'tool') out.push({ type: 'function_call_output', call_id: m.tool_call_id, output: m.content ?? '' });
    else {
      if (m.content) out.push({ type: 'message', role: m.role, content: m.content });
      for (const c of m.tool_calls ?? []) out.push({ type: 'function_call', call_id: c.id, name: c.function.name, arguments: c.function.arguments });
    }
    items = out.map((item) => JSON.stringify(item)).join(',');
    converted.set(json, items);
  }
  return items;
}

const TOOLS_JSON = JSON.stringify(
  (TOOLS as { type: string; function: { name: string; description?: string; parameters?: unknown } }[]).map((t) => ({ type: 'function', ...t.function })),
);

/** growthBody's request on the Responses route. */
export function responsesGrowthBody(history: GrowthHistory, added: readonly string[]): Buffer {
  const items = [...history.messages, ...added].map(asItems);
  return Buffer.from(`{"model":${JSON.stringify(history.model)},"input":[${items.join(',')}],"tools":${TOOLS_JSON}}`);
}
