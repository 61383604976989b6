// Wire types of the OpenAI Responses API (POST /v1/responses), as far as recap needs to read them.
// Everything else a client sends is carried along untouched.

/** One item of `input`: a message (with or without `type`), a tool call or its output, reasoning, … */
export interface ResponseItem {
  type?: string;
  role?: string;
  content?: unknown;
  call_id?: string;
  name?: string;
  arguments?: unknown;
  input?: unknown;
  output?: unknown;
  [key: string]: unknown;
}

export interface ResponsesRequest {
  model: string;
  input?: string | ResponseItem[];
  instructions?: unknown;
  tools?: unknown[];
  max_output_tokens?: number | null;
  /** State kept by the provider: such a request is forwarded untouched. */
  previous_response_id?: string | null;
  conversation?: unknown;
  [key: string]: unknown;
}
