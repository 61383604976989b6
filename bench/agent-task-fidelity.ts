import { identifiersIn, mentions } from '../src/compaction/identifiers.js';
import { SUMMARY_MARKER } from '../src/compaction/summary-message.js';
import type { ChatMessage } from '../src/messages/types.js';
import { REMINDER, type ScriptedStep, TASK } from './agent-task-script.js';
import type { Drive } from './bench-recap.js';
import { messageText } from './message-text.js';

// What of the task's own words and of the agent's artifact trail the model still sees at the last
// step (issue 26), counted on the last request the fake upstream received: the identifiers that
// the task and the harness's reminder stated (as the ledger finds identifiers), and the paths that
// the tool calls of the first third of the steps acted on, with how many of those only recap's
// summary still carries (no kept step names them again).

export interface Fidelity {
  userIdentifiers: number;
  userIdentifiersKept: number;
  firstThirdPaths: number;
  firstThirdPathsKept: number;
  firstThirdPathsOnlyInSummary: number;
}

const isSummary = (m: ChatMessage) => m.role === 'system' && typeof m.content === 'string' && m.content.startsWith(SUMMARY_MARKER);

function pathsNamed(steps: readonly ScriptedStep[]): string[] {
  const paths = new Set<string>();
  for (const step of steps) {
    for (const call of step.calls) {
      const path = (JSON.parse(call.arguments) as { path?: unknown }).path;
      if (typeof path === 'string') paths.add(path);
    }
  }
  return [...paths];
}

export function measureFidelity(drive: Drive, script: readonly ScriptedStep[]): Fidelity {
  const last = (drive.chatRequests.at(-1)!.json as { messages: ChatMessage[] }).messages;
  const everything = last.map(messageText).join('\n');
  const summary = last.filter(isSummary).map(messageText).join('\n');
  const rest = last
    .filter((m) => !isSummary(m))
    .map(messageText)
    .join('\n');
  const stated = identifiersIn(`${TASK.content}\n${REMINDER.content}`);
  const paths = pathsNamed(script.slice(0, Math.ceil(script.length / 3)));
  const kept = paths.filter((p) => mentions(everything, p));
  return {
    userIdentifiers: stated.length,
    userIdentifiersKept: stated.filter((id) => mentions(everything, id)).length,
    firstThirdPaths: paths.length,
    firstThirdPathsKept: kept.length,
    firstThirdPathsOnlyInSummary: kept.filter((p) => mentions(summary, p) && !mentions(rest, p)).length,
  };
}
