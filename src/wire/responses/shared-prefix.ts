import { replaceDocumentMembers } from '../../body/splice.js';
import { stringifyJson } from '../../body/stringify.js';
import { readResponsesSummarizerReply } from '../../summarizer/responses.js';
import { cutItems } from '../cut-items.js';
import type { SharedPrefixCall, SharedPrefixWire } from '../format.js';

// The Responses summarizer call on the conversation's cached prefix (as chat/shared-prefix.ts): the
// body recap forwarded, its `input` cut after the span as forwarded, one user message appended.
// `instructions` and `tools` stay as sent (they come first in the cached prompt). What changes:
// `stream` (when given) is false, `max_output_tokens` is the summary's limit, `tool_choice` (when
// tools are given) is "none", `store` is false: the summary call is recap's, not a turn of the
// client's for the provider to keep; and a `text.format` that asks for JSON is text (the summary is
// prose).

export function responsesSharedPrefixBody(forwarded: Buffer, call: SharedPrefixCall): Buffer {
  const { bytes, value } = cutItems(forwarded, 'input', call.keep, stringifyJson({ role: 'user', content: call.instruction }));
  const changes = new Map<string, unknown>([
    ['max_output_tokens', call.maxTokens],
    ['store', false],
  ]);
  if ('stream' in value) changes.set('stream', false);
  if (Array.isArray(value.tools) && value.tools.length > 0) changes.set('tool_choice', 'none');
  const text = value.text as { format?: { type?: unknown } } | null | undefined;
  if (text?.format && text.format.type !== 'text') changes.set('text', { ...text, format: { type: 'text' } });
  return replaceDocumentMembers(bytes, changes);
}

export const responsesSharedPrefix: SharedPrefixWire = { body: responsesSharedPrefixBody, readReply: readResponsesSummarizerReply };
