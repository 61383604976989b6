import { replaceDocumentMembers } from '../../body/splice.js';
import { stringifyJson } from '../../body/stringify.js';
import { readSummarizerReply } from '../../summarizer/reply.js';
import { cutItems } from '../cut-items.js';
import type { SharedPrefixCall, SharedPrefixWire } from '../format.js';

// A chat summarizer call on the conversation's cached prefix (docs/cost.md, Which summarizer): the
// body recap forwarded, its `messages` cut after the span as forwarded, one user instruction
// appended. The messages kept are that body's bytes, so the provider serves them (and the tools
// and system before them) from its cache. Only what a summary call cannot go without changes:
// - `stream` (when given) is false: the summary is read as one JSON reply;
// - `stream_options` (when given) is null: providers refuse it without a stream;
// - the token limit is the summary's (the field the body uses, else the configured one);
// - `tool_choice` (when `tools` are given) is "none": the tools stay, as part of the cached
//   prefix, but the reply must be text;
// - a `response_format` that asks for JSON is text: the summary is prose (the provider then reads
//   less of the prompt from its cache, as the format is part of it).
// A member the body lacks is written first (body/splice.ts); providers cache the prompt the
// members make, not the order of the JSON's keys, so this costs no cached token.

const asksForJson = (format: unknown): boolean => typeof format === 'object' && format !== null && (format as { type?: unknown }).type !== 'text';

export function chatSharedPrefixBody(forwarded: Buffer, call: SharedPrefixCall): Buffer {
  const { bytes, value } = cutItems(forwarded, 'messages', call.keep, stringifyJson({ role: 'user', content: call.instruction }));
  const limits = (['max_tokens', 'max_completion_tokens'] as const).filter((field) => field in value);
  const changes = new Map<string, unknown>((limits.length > 0 ? limits : [call.tokenLimitField]).map((field) => [field, call.maxTokens]));
  if ('stream' in value) changes.set('stream', false);
  if ('stream_options' in value) changes.set('stream_options', null);
  if (Array.isArray(value.tools) && value.tools.length > 0) changes.set('tool_choice', 'none');
  if (asksForJson(value.response_format)) changes.set('response_format', { type: 'text' });
  return replaceDocumentMembers(bytes, changes);
}

export const chatSharedPrefix: SharedPrefixWire = { body: chatSharedPrefixBody, readReply: readSummarizerReply };
