import { SUMMARY_MARKER } from '../src/compaction/summary-message.js';
import type { ChatMessage } from '../src/messages/types.js';
import { REMINDER, SYSTEM_PROMPT, TASK } from './agent-task-script.js';
import type { Drive } from './bench-recap.js';

// What issue 16 asks of every request recap forwards during an agent's task, checked on what the
// fake upstream received: the pinned system prompt first, the task verbatim right after it (or
// after the summary), a later instruction verbatim once the client has sent it, the newest step
// verbatim, no tool call without its result or result without its call, and one stub per cleared
// result (the same bytes on every later request).

export interface ShapeViolations {
  notPinnedFirst: number;
  taskNotAfterPinnedOrSummary: number;
  reminderMissing: number;
  newestStepNotVerbatim: number;
  resultsWithoutTheirCall: number;
  callsWithoutTheirResult: number;
  /** Tool results shown with more than two texts (the original and one stub) across the run. */
  resultsWithSeveralStubs: number;
}

export interface Shape {
  requests: number;
  violations: ShapeViolations;
  /** Distinct tool results shown cleared at least once. */
  clearedResults: number;
  /** Requests carrying recap's summary. */
  requestsWithSummary: number;
}

const json = (m: unknown) => JSON.stringify(m);
const SYSTEM = json({ role: 'system', content: SYSTEM_PROMPT });

function isSummary(m: ChatMessage | undefined): boolean {
  return m?.role === 'system' && typeof m.content === 'string' && m.content.startsWith(SUMMARY_MARKER);
}

/** The client's newest step: its last assistant message and what follows it. */
function newestStep(messages: readonly ChatMessage[]): string[] {
  const at = messages.map((m) => m.role).lastIndexOf('assistant');
  return at === -1 ? [] : messages.slice(at).map(json);
}

export function checkShape(drive: Drive): Shape {
  const v: ShapeViolations = {
    notPinnedFirst: 0,
    taskNotAfterPinnedOrSummary: 0,
    reminderMissing: 0,
    newestStepNotVerbatim: 0,
    resultsWithoutTheirCall: 0,
    callsWithoutTheirResult: 0,
    resultsWithSeveralStubs: 0,
  };
  const texts = new Map<string, Set<string>>();
  const original = new Map<string, string>();
  let requestsWithSummary = 0;
  drive.chatRequests.forEach((request, i) => {
    const sent = (request.json as { messages: ChatMessage[] }).messages;
    const client = drive.turns[i]!.messages as ChatMessage[];
    if (json(sent[0]) !== SYSTEM) v.notPinnedFirst++;
    const summarized = isSummary(sent[1]);
    if (summarized) requestsWithSummary++;
    if (json(sent[summarized ? 2 : 1]) !== json(TASK)) v.taskNotAfterPinnedOrSummary++;
    if (client.some((m) => json(m) === json(REMINDER)) && !sent.some((m) => json(m) === json(REMINDER))) v.reminderMissing++;
    const newest = newestStep(client);
    const tail = sent.slice(sent.length - newest.length).map(json);
    if (newest.some((m, k) => m !== tail[k])) v.newestStepNotVerbatim++;

    const called = new Set<string>();
    const answered = new Set<string>();
    for (const m of sent) {
      for (const call of m.role === 'assistant' && Array.isArray(m.tool_calls) ? m.tool_calls : []) called.add(call.id);
      if (m.role !== 'tool' || typeof m.tool_call_id !== 'string') continue;
      if (!called.has(m.tool_call_id)) v.resultsWithoutTheirCall++;
      answered.add(m.tool_call_id);
      const seen = texts.get(m.tool_call_id) ?? new Set<string>();
      seen.add(json(m.content));
      texts.set(m.tool_call_id, seen);
    }
    for (const id of called) if (!answered.has(id)) v.callsWithoutTheirResult++;
    for (const m of client) if (m.role === 'tool' && typeof m.tool_call_id === 'string') original.set(m.tool_call_id, json(m.content));
  });
  let clearedResults = 0;
  for (const [id, seen] of texts) {
    const stubs = [...seen].filter((t) => t !== original.get(id)).length;
    if (stubs > 0) clearedResults++;
    if (stubs > 1) v.resultsWithSeveralStubs++;
  }
  return { requests: drive.chatRequests.length, violations: v, clearedResults, requestsWithSummary };
}
