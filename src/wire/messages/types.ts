// The Anthropic Messages API's request as far as recap reads it; everything else a client sends is
// carried along untouched (rule 12).

export interface ContentBlock {
  type: string;
  [key: string]: unknown;
}

export interface AnthropicMessage {
  /** `user` and `assistant`; Claude Code also sends `system` turns inside `messages`. */
  role: string;
  content: string | ContentBlock[];
  [key: string]: unknown;
}

export interface MessagesRequest {
  model: string;
  messages: AnthropicMessage[];
  system?: string | ContentBlock[];
  tools?: unknown[];
  max_tokens?: number;
  stream?: boolean;
  [key: string]: unknown;
}
