// The one tool recap adds to a request once its view left something out (docs/design.md rule 13). Its
// definition is a constant: the same bytes on every turn, so the upstream's prompt cache holds
// across the turns that carry it. Each route writes it in its own wire shape from these parts.

export const RECALL_TOOL_NAME = 'recap_recall';

export const RECALL_TOOL_DESCRIPTION =
  'Look up earlier content of this conversation that was cleared or summarized to save context: a tool result shown as a stub, or messages the summary covers. Returns the matching passages as they were sent.';

export const RECALL_TOOL_PARAMETERS = {
  type: 'object',
  properties: {
    query: { type: 'string', description: 'Text to find: a file path, an identifier, a phrase.' },
    id: { type: 'string', description: 'Optional: the id printed in a cleared stub (its call id) to get that result back whole.' },
  },
  required: ['query'],
  additionalProperties: false,
} as const;

/** The chat completions form: one element of `tools`. */
export const CHAT_RECALL_TOOL = {
  type: 'function',
  function: { name: RECALL_TOOL_NAME, description: RECALL_TOOL_DESCRIPTION, parameters: RECALL_TOOL_PARAMETERS },
} as const;
/** The same as JSON text: the bytes recap splices into `tools`. */
export const CHAT_RECALL_TOOL_JSON = JSON.stringify(CHAT_RECALL_TOOL);

/** The most prompt tokens the tool's definition adds in any encoding recap counts with (tool.test.ts). */
export const RECALL_TOOL_MAX_TOKENS = 160;

/** The Responses API form: one element of `tools`, as JSON text. */
export const RESPONSES_RECALL_TOOL_JSON = JSON.stringify({
  type: 'function',
  name: RECALL_TOOL_NAME,
  description: RECALL_TOOL_DESCRIPTION,
  parameters: RECALL_TOOL_PARAMETERS,
  strict: false,
});
