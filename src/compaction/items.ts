// The neutral view of one conversation item that the engine plans over. Each wire format's adapter
// (wire/chat/, wire/responses/) maps its items onto it; nothing below this line knows which API it serves.

export type ItemKind =
  /** A system or developer message: pinned when leading, kept verbatim when later (rule 2). */
  | 'instruction'
  /** A user message: it opens a round (rule 1). */
  | 'user'
  /** Assistant-side output (a reply, a tool call, reasoning): consecutive ones form one step. */
  | 'assistant'
  /** A tool result: it belongs to the step of the call it answers. */
  | 'result'
  /** Anything else (an unknown role or item type): a unit of its own. */
  | 'other';

export interface NeutralCall {
  id: string;
  /** The tool's name, for the stub of a cleared result. */
  name: string;
}

export interface NeutralItem {
  kind: ItemKind;
  /** Calls this item issues (an assistant's tool calls, a Responses function_call). */
  calls: readonly NeutralCall[];
  /** For a result: the call it answers, when it names one. */
  resultOf: string | null;
}
