// The containers recap walks in every message (to count, hash, cut into rounds and summarize):
// `content` and `tool_calls`. A shape recap cannot walk is refused here with a 400 naming the
// field, rather than failing later as a 500. OpenAI refuses these shapes too; every other field,
// role and part type is left to the upstream.

function isObject(v: unknown): boolean {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function isAbsent(v: unknown): boolean {
  return v === undefined || v === null;
}

export interface ShapeProblem {
  /** The offending field below the message, e.g. `content`. */
  field: string;
  message: string;
}

/** What makes one message unprocessable, or null when recap can process it. */
export function messageShapeProblem(m: Record<string, unknown>): ShapeProblem | null {
  const { content, tool_calls: calls } = m;
  if (!(isAbsent(content) || typeof content === 'string' || (Array.isArray(content) && content.every(isObject)))) {
    return { field: 'content', message: 'must be a string, an array of content part objects, or null' };
  }
  if (!(isAbsent(calls) || (Array.isArray(calls) && calls.every(isObject)))) {
    return { field: 'tool_calls', message: 'must be an array of tool call objects, or null' };
  }
  return null;
}
