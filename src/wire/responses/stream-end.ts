import { carriesError, type StreamEndRule } from '../../http/stream-end.js';

// A Responses stream ends with the event of its response's final state: `response.completed`, or
// `response.incomplete` (the response is whole, cut at its token limit as a chat `length` finish
// is); `response.failed` or an `error` event means it failed.

const ENDS = new Map<string, 'success' | 'failure'>([
  ['response.completed', 'success'],
  ['response.incomplete', 'success'],
  ['response.failed', 'failure'],
  ['error', 'failure'],
]);

// OpenAI names each event (`event: response.completed`) and repeats the name as the data's
// leading `type`; a server that sends only data is read by that `type`.
const LEADING_TYPE = /^\s*\{\s*"type"\s*:\s*"([^"\\]*)"/;

function typeOf(data: string): string | undefined {
  const leading = LEADING_TYPE.exec(data);
  if (leading) return leading[1];
  try {
    const type = (JSON.parse(data) as { type?: unknown } | null)?.type;
    return typeof type === 'string' ? type : undefined;
  } catch {
    return undefined;
  }
}

export const responsesStreamEnd: StreamEndRule = (event) => {
  const end = ENDS.get(event.event ?? typeOf(event.data) ?? '');
  if (end) return end;
  return carriesError(event.data) ? 'failure' : undefined;
};
