import type { TokenCounter } from '../tokens/counter.js';
import { CHAT_RECALL_TOOL } from './tool.js';

// What recap_recall's definition adds after a request's own function tools (their namespace's
// framing is there already), per encoding: the same whatever the functions, so a request's (maybe
// large) tools are not counted a second time to price it. Counted in the chat shape, which the
// Responses route counts its function tools in too.

const added = new Map<string, number>();
const SOME_FUNCTION = { type: 'function', function: { name: 'f', parameters: { type: 'object', properties: {} } } };

export function recallTokensAfterFunctions(counter: TokenCounter): number {
  let tokens = added.get(counter.encoding);
  if (tokens === undefined) {
    tokens =
      counter.countTools({ model: '', messages: [], tools: [SOME_FUNCTION, CHAT_RECALL_TOOL] } as never) -
      counter.countTools({ model: '', messages: [], tools: [SOME_FUNCTION] } as never);
    added.set(counter.encoding, tokens);
  }
  return tokens;
}
