// A Responses API request read as the chat messages and tools it amounts to, so the fake's
// default reply and probe answering (written for chat) read `instructions` and `input` items too.

export interface ChatView {
  messages: any[];
  tools: any[];
}

export function chatViewOf(request: any): ChatView {
  const messages: any[] = [];
  if (typeof request?.instructions === 'string') messages.push({ role: 'system', content: request.instructions });
  if (typeof request?.input === 'string') messages.push({ role: 'user', content: request.input });
  for (const item of Array.isArray(request?.input) ? request.input : []) {
    const message = messageOf(item);
    if (message !== undefined) messages.push(message);
  }
  const tools = (Array.isArray(request?.tools) ? request.tools : [])
    .filter((t: any) => t?.type === 'function')
    .map((t: any) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
  return { messages, tools };
}

/** Reasoning and items the fake does not model are not part of what it reads. */
function messageOf(item: any): any {
  switch (item?.type ?? (typeof item?.role === 'string' ? 'message' : undefined)) {
    case 'message':
      return { role: item.role, content: item.content };
    case 'function_call':
      return callMessage(item.call_id, item.name, item.arguments);
    case 'custom_tool_call':
      return callMessage(item.call_id, item.name, item.input);
    case 'function_call_output':
    case 'custom_tool_call_output':
      return { role: 'tool', tool_call_id: item.call_id, content: item.output };
    default:
      return undefined;
  }
}

function callMessage(callId: unknown, name: unknown, args: unknown): object {
  return { role: 'assistant', content: null, tool_calls: [{ id: callId, type: 'function', function: { name, arguments: typeof args === 'string' ? args : '' } }] };
}
