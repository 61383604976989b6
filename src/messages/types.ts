// The message shape that the engine, token counting and the ledger share: the chat completions
// API's, as far as recap reads it (the Responses route maps its items onto it). Everything else a
// client sends is carried along untouched.

export interface TextPart {
  type: 'text';
  text: string;
}
export interface ImagePart {
  type: 'image_url';
  image_url: { url: string; detail?: 'low' | 'high' | 'auto' };
}
export type ContentPart = TextPart | ImagePart | { type: string; [key: string]: unknown };

export interface ToolCall {
  id: string;
  type: 'function' | string;
  function: { name: string; arguments: string };
}

export interface ChatMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool' | 'function' | string;
  content?: string | ContentPart[] | null;
  name?: string | null;
  tool_calls?: ToolCall[] | null;
  tool_call_id?: string | null;
  [key: string]: unknown;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  tools?: unknown[];
  functions?: unknown[];
  response_format?: unknown;
  [key: string]: unknown;
}
