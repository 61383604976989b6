import { parseJsonBody } from '../../body/json-body.js';
import { replaceDocumentMembers } from '../../body/splice.js';
import { arrayElements } from '../../body/scan.js';
import { stringifyJson } from '../../body/stringify.js';

// A summarizer call that rides the conversation's cached prefix (docs/cost.md): the chat body recap
// last forwarded, its `messages` cut after the span to summarize, one user instruction appended.
// The messages kept are that body's bytes as forwarded, so the provider serves them (and the tools
// and system before them) from its cache. Only what a summary call cannot do without changes:
// - `stream` (when given) is false: the summary is read as one JSON reply;
// - `stream_options` (when given) is null: providers refuse it without a stream;
// - the token limit field is the summary's limit: the client's own is for its own replies;
// - `tool_choice` (when `tools` are given) is "none": the tools stay, since they are part of the
//   cached prefix, but the reply must be text.
// A member the body lacks (the limit) is written first (body/splice.ts); providers cache the prompt
// the members make, not the order of the JSON's keys, so this costs no cached token.

export interface SharedPrefixCall {
  /** The chat body as recap last forwarded it. */
  forwarded: Buffer;
  /** How many of its messages the prefix keeps: up to the end of the span summarized. */
  keep: number;
  /** The final user message: summarize the span, integrating the previous summary. */
  instruction: string;
  tokenLimitField: 'max_tokens' | 'max_completion_tokens';
  maxTokens: number;
}

export function sharedPrefixSummaryBody(call: SharedPrefixCall): Buffer {
  const body = parseJsonBody(call.forwarded);
  const messages = body.members?.find((m) => m.key === 'messages');
  if (!messages) throw new TypeError('the forwarded body has no `messages`');
  const { raw } = body;
  const spans = arrayElements(raw, messages.value.start).items;
  if (call.keep < 1 || call.keep > spans.length) throw new RangeError(`cannot keep ${call.keep} of ${spans.length} messages`);
  const close = messages.value.end - 1;
  const instruction = Buffer.from(`,${stringifyJson({ role: 'user', content: call.instruction })}`);
  const cut = Buffer.concat([raw.subarray(0, spans[call.keep - 1]!.end), instruction, raw.subarray(close)]);
  const value = body.value as Record<string, unknown>;
  const changes = new Map<string, unknown>([[call.tokenLimitField, call.maxTokens]]);
  if ('stream' in value) changes.set('stream', false);
  if ('stream_options' in value) changes.set('stream_options', null);
  if (Array.isArray(value.tools) && value.tools.length > 0) changes.set('tool_choice', 'none');
  return replaceDocumentMembers(cut, changes);
}
