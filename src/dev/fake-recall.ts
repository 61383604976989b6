// The fake model's side of `recap_recall` (issue 25): a probe whose cue its prompt does not hold
// is answered, when recap offers the tool, by calling it with the cue as `query`, as a real model
// would; the continuation that carries the tool's results is answered from them. One recall per
// probe: what the first one did not bring back, the fake says it does not know.
import { answerProbe, hasCue, probeCue } from './fake-probe.js';
import { textOf } from './fake-text.js';
import type { ScriptedReply } from './fake-types.js';

export const RECALL_TOOL = 'recap_recall';

/** The reply to a conversation whose last user message is a probe, or null when it is not one. */
export function probeReply(messages: readonly any[], tools: readonly any[]): ScriptedReply | null {
  let at = messages.length - 1;
  while (at >= 0 && messages[at]?.role !== 'user') at--;
  const cue = at < 0 ? null : probeCue(textOf(messages[at].content));
  if (cue === null) return null;
  const before = messages.slice(0, at);
  const recalled = recallResults(messages.slice(at + 1));
  if (recalled === undefined) return null;
  if (recalled === null && !hasCue(before, cue) && tools.some((t) => toolName(t) === RECALL_TOOL)) {
    return { toolCalls: [{ name: RECALL_TOOL, arguments: JSON.stringify({ query: cue }) }] };
  }
  // A result quotes the query back ("nothing mentions \"MARK-7\""): that echo is not an answer.
  const results = (recalled ?? []).map((m) => ({ role: 'tool', content: textOf(m.content).split(`"${cue}"`).join('""') }));
  return { content: answerProbe([...before, ...results], cue) };
}

/** The name of a chat tool definition. */
export function toolName(tool: any): string | undefined {
  const name = tool?.function?.name;
  return typeof name === 'string' ? name : undefined;
}

/**
 * The tool results of the recap_recall calls made after the question: null when none was made,
 * undefined when something else came after it (the question is no longer what is being answered).
 */
function recallResults(after: readonly any[]): any[] | null | undefined {
  const ids = new Set<unknown>();
  for (const m of after) {
    if (m?.role !== 'assistant') continue;
    const calls: any[] = Array.isArray(m.tool_calls) ? m.tool_calls : [];
    if (calls.length === 0 || calls.some((c) => c?.function?.name !== RECALL_TOOL)) return undefined;
    for (const call of calls) ids.add(call.id);
  }
  if (after.some((m) => m?.role !== 'assistant' && !(m?.role === 'tool' && ids.has(m.tool_call_id)))) return undefined;
  return ids.size === 0 ? null : after.filter((m) => m.role === 'tool');
}
