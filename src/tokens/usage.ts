import { createParser } from 'eventsource-parser';

// Reading the usage an upstream reports: `prompt_tokens` calibrates recap's estimates
// (calibration.ts); the cached, cache-written and output tokens price the request (cost/). Only
// what the upstream sends anyway is read: recap never asks for usage in streams (no
// `stream_options.include_usage`), so a stream reports it only when the client asked.

/** What one reply says it used, in tokens; a field the reply does not carry is absent. */
export interface UsageReport {
  /** The whole prompt: cached, written to the cache and uncached together. */
  promptTokens: number;
  /** Prompt tokens read from the provider's cache. */
  cachedTokens?: number;
  /** Prompt tokens written to the cache (Anthropic bills them apart). */
  cacheWriteTokens?: number;
  outputTokens?: number;
}

interface WireUsage {
  prompt_tokens?: unknown;
  completion_tokens?: unknown;
  prompt_tokens_details?: { cached_tokens?: unknown } | null;
  input_tokens?: unknown;
  output_tokens?: unknown;
  input_tokens_details?: { cached_tokens?: unknown } | null;
  cache_read_input_tokens?: unknown;
  cache_creation_input_tokens?: unknown;
}

const count = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined);

/** The usage object of a reply: top level (chat, Responses, Anthropic JSON), a stream's `response` or Anthropic's `message_start`. */
function wireUsageOf(reply: unknown): WireUsage | undefined {
  const r = reply as { usage?: WireUsage | null; response?: { usage?: WireUsage | null }; message?: { usage?: WireUsage | null } } | null;
  return r?.usage ?? r?.response?.usage ?? r?.message?.usage ?? undefined;
}

/**
 * Chat completions: `prompt_tokens` with `prompt_tokens_details.cached_tokens`. Responses:
 * `input_tokens` with `input_tokens_details.cached_tokens`. Anthropic Messages: `input_tokens`
 * counts only the uncached part; `cache_read_input_tokens` and `cache_creation_input_tokens` are
 * the rest of the prompt. A stream's partial usage (Anthropic's `message_delta`: output only) has
 * no prompt: undefined.
 */
export function usageReportOf(reply: unknown): UsageReport | undefined {
  const u = wireUsageOf(reply);
  if (!u || typeof u !== 'object') return undefined;
  const read = count(u.cache_read_input_tokens);
  const written = count(u.cache_creation_input_tokens);
  const anthropic = read !== undefined || written !== undefined;
  const uncachedOrAll = count(u.prompt_tokens) ?? count(u.input_tokens);
  const outputTokens = count(u.completion_tokens) ?? count(u.output_tokens);
  if (uncachedOrAll === undefined) return outputTokens === undefined ? undefined : { promptTokens: Number.NaN, outputTokens };
  const report: UsageReport = anthropic
    ? { promptTokens: uncachedOrAll + (read ?? 0) + (written ?? 0), cachedTokens: read ?? 0, cacheWriteTokens: written ?? 0 }
    : { promptTokens: uncachedOrAll };
  const cached = count(u.prompt_tokens_details?.cached_tokens) ?? count(u.input_tokens_details?.cached_tokens);
  if (!anthropic && cached !== undefined) report.cachedTokens = Math.min(cached, uncachedOrAll);
  if (outputTokens !== undefined) report.outputTokens = outputTokens;
  return report;
}

/** A later event's usage over an earlier one's: Anthropic's `message_delta` may add only the output to `message_start`'s prompt. */
function merged(earlier: UsageReport | undefined, later: UsageReport): UsageReport {
  if (!earlier || !Number.isNaN(later.promptTokens)) return later;
  return { ...earlier, outputTokens: later.outputTokens ?? earlier.outputTokens };
}

const complete = (r: UsageReport | undefined): UsageReport | undefined => (r && !Number.isNaN(r.promptTokens) ? r : undefined);

/** The usage a JSON reply body reports, if it does. */
export function usageReportFromJson(body: Uint8Array | string): UsageReport | undefined {
  try {
    const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
    return complete(usageReportOf(JSON.parse(text)));
  } catch {
    return undefined;
  }
}

/** The prompt tokens a JSON reply body reports, if it does. */
export function usageFromJson(body: Uint8Array | string): number | undefined {
  return usageReportFromJson(body)?.promptTokens;
}

export interface SseUsageSniffer {
  /** Observes one chunk of the stream as it passes; the chunk itself is neither changed nor kept. */
  feed(chunk: Uint8Array | string): void;
  /** The latest prompt tokens seen in the stream so far. */
  readonly promptTokens: number | undefined;
  /** All the stream reported of its usage so far. */
  readonly report: UsageReport | undefined;
}

/**
 * Watches an SSE stream (chat chunks, Responses events, Anthropic events) for the events that
 * carry usage. Reports through `onPromptTokens` (once per usage-bearing event with a prompt) and
 * the `promptTokens` and `report` properties.
 */
export function createSseUsageSniffer(onPromptTokens?: (tokens: number) => void): SseUsageSniffer {
  // A streaming decoder, because a multi-byte character can be split across two chunks.
  const decoder = new TextDecoder();
  let report: UsageReport | undefined;
  const parser = createParser({
    onEvent(event) {
      // Most events are content deltas; parse only those that can carry usage.
      if (!event.data.includes('"usage"')) return;
      let seen: UsageReport | undefined;
      try {
        seen = usageReportOf(JSON.parse(event.data));
      } catch {
        return;
      }
      if (seen === undefined) return;
      report = merged(report, seen);
      if (!Number.isNaN(seen.promptTokens)) onPromptTokens?.(seen.promptTokens);
    },
  });
  return {
    feed(chunk) {
      parser.feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    },
    get promptTokens() {
      return complete(report)?.promptTokens;
    },
    get report() {
      return complete(report);
    },
  };
}
