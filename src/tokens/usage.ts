import { createParser } from 'eventsource-parser';

// Reading `usage.prompt_tokens` from upstream responses, to calibrate recap's estimates
// (calibration.ts). Only what the upstream sends anyway is read: recap never asks for usage in
// streams (no `stream_options.include_usage`), so a stream reports it only when the client asked.

interface Usage {
  prompt_tokens?: unknown;
  input_tokens?: unknown;
}

/**
 * The prompt tokens a reply reports: a chat completion's `usage.prompt_tokens`, a Responses API
 * response's `usage.input_tokens` (in a stream, on the `response` of its `response.completed`).
 */
function promptTokensOf(reply: unknown): number | undefined {
  const r = reply as { usage?: Usage; response?: { usage?: Usage } } | null;
  const usage = r?.usage ?? r?.response?.usage;
  const tokens = usage?.prompt_tokens ?? usage?.input_tokens;
  return typeof tokens === 'number' && Number.isInteger(tokens) && tokens >= 0 ? tokens : undefined;
}

/** The prompt tokens a JSON reply body reports, if it does. */
export function usageFromJson(body: Uint8Array | string): number | undefined {
  try {
    const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
    return promptTokensOf(JSON.parse(text));
  } catch {
    return undefined;
  }
}

export interface SseUsageSniffer {
  /** Observes one chunk of the stream as it passes; the chunk itself is neither changed nor kept. */
  feed(chunk: Uint8Array | string): void;
  /** The latest `usage.prompt_tokens` seen in the stream so far. */
  readonly promptTokens: number | undefined;
}

/**
 * Watches an SSE chat completion stream for the chunk that carries `usage`. Reports through
 * `onPromptTokens` (once per usage-bearing event) and the `promptTokens` property.
 */
export function createSseUsageSniffer(onPromptTokens?: (tokens: number) => void): SseUsageSniffer {
  // A streaming decoder, because a multi-byte character can be split across two chunks.
  const decoder = new TextDecoder();
  let promptTokens: number | undefined;
  const parser = createParser({
    onEvent(event) {
      // Most events are content deltas; parse only those that can carry usage.
      if (!event.data.includes('"usage"')) return;
      let tokens: number | undefined;
      try {
        tokens = promptTokensOf(JSON.parse(event.data));
      } catch {
        return;
      }
      if (tokens === undefined) return;
      promptTokens = tokens;
      onPromptTokens?.(tokens);
    },
  });
  return {
    feed(chunk) {
      parser.feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    },
    get promptTokens() {
      return promptTokens;
    },
  };
}
