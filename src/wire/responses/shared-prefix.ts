import { withArrayCut } from '../../body/cut-array.js';
import { replaceDocumentMembers } from '../../body/splice.js';
import { stringifyJson } from '../../body/stringify.js';

// The Responses API's summarizer body on the conversation's cached prefix (as chat/shared-prefix.ts):
// the body recap last forwarded, its `input` cut after the span as forwarded, one user message
// appended. `instructions` and `tools` stay as sent (they come first in the cached prompt). What
// changes: `stream` (when given) is false, `max_output_tokens` is the summary's limit, `tool_choice`
// (when tools are given) is "none", and `store` is false: the summary call is recap's, not a turn
// of the client's to keep on the provider.

export interface ResponsesSharedPrefixCall {
  /** The Responses body as recap last forwarded it. */
  forwarded: Buffer;
  /** How many of its input items the prefix keeps: up to the end of the span summarized. */
  keep: number;
  instruction: string;
  maxTokens: number;
}

export function responsesSharedPrefixBody(call: ResponsesSharedPrefixCall): Buffer {
  const instruction = stringifyJson({ role: 'user', content: call.instruction });
  const { bytes, value } = withArrayCut(call.forwarded, 'input', call.keep, instruction);
  const changes = new Map<string, unknown>([
    ['max_output_tokens', call.maxTokens],
    ['store', false],
  ]);
  if ('stream' in value) changes.set('stream', false);
  if (Array.isArray(value.tools) && value.tools.length > 0) changes.set('tool_choice', 'none');
  return replaceDocumentMembers(bytes, changes);
}
