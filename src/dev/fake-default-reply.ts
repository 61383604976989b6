// What the fake answers when nothing is scripted: a deterministic echo of the last user message,
// a call to the first tool when the user asks for a tool, or the answer to a recall probe (with a
// call to recap_recall first when recap offers it and the prompt lacks the cue: fake-recall.ts).
import { probeReply, RECALL_TOOL, toolName } from './fake-recall.js';
import { textOf } from './fake-text.js';
import type { ScriptedReply } from './fake-types.js';

export function defaultChatReply(request: any): ScriptedReply {
  const messages: any[] = Array.isArray(request?.messages) ? request.messages : [];
  const tools: any[] = Array.isArray(request?.tools) ? request.tools : [];
  const probe = probeReply(messages, tools);
  if (probe !== null) return probe;
  const last = messages.at(-1);
  // recap's own tool is not one the user asks for.
  const clientTools = tools.filter((t) => toolName(t) !== RECALL_TOOL);
  if (clientTools.length > 0 && last?.role === 'user' && /\btool\b/i.test(textOf(last.content))) {
    const fn = clientTools[0]?.function;
    const name = typeof fn?.name === 'string' ? fn.name : 'tool';
    return { toolCalls: [{ name, arguments: JSON.stringify(sampleArguments(fn?.parameters)) }] };
  }
  const lastUser = [...messages].reverse().find((m) => m?.role === 'user');
  const said = textOf(lastUser?.content).replace(/\s+/g, ' ').trim();
  return { content: `Echo: ${said.slice(0, 60)}. This is a deterministic reply from the fake upstream.` };
}

/** Arguments that satisfy a JSON schema's declared properties, so tool-call tests look real. */
function sampleArguments(schema: any): Record<string, unknown> {
  const properties = schema?.properties;
  if (typeof properties !== 'object' || properties === null) return {};
  const args: Record<string, unknown> = {};
  for (const [key, property] of Object.entries<any>(properties)) {
    args[key] = sampleValue(property?.type);
  }
  return args;
}

function sampleValue(type: unknown): unknown {
  switch (type) {
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return 'example';
  }
}
