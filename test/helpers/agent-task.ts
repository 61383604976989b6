import type { FakeUpstream, RecordedRequest, ScriptedReply } from '../../src/dev/fake-upstream.js';

// One agent task for the fake upstream to play: the main model answers every request with the
// next step's tool calls (every fourth step two parallel ones) until `steps` steps are done,
// then with a final answer. The tools' results are 1-8 KB of log text carrying identifiers.

export const TASK = 'Investigate incident INC-4411: read every part of the deploy log of release R-2024.11 and report the root cause.';

/** A log part of 1-8 KB, different for every part, with identifiers an agent would care about. */
export function logPart(part: number): string {
  const kb = 1 + ((part * 2_654_435_761) % 8);
  const lines: string[] = [];
  for (let i = 0; lines.join('\n').length < kb * 1024; i++) {
    lines.push(
      `2024-11-0${(part % 9) + 1}T10:${String(i % 60).padStart(2, '0')}:00Z part ${part} line ${i}: pod web-${part}-${i % 7} restarted, exit code ${137 + (i % 3)}, trace ${(part * 7919 + i).toString(16)}`,
    );
  }
  return lines.join('\n');
}

export interface AgentScript {
  /** Main-model requests answered so far (a step each, then the final answer). */
  readonly steps: number;
  readonly requests: RecordedRequest[];
}

/** Makes `fake` play the main model of a `steps`-step task for requests of `model`. */
export function playAgentTask(fake: FakeUpstream, model: string, steps: number): AgentScript {
  const state = { steps: 0, requests: [] as RecordedRequest[] };
  let nextPart = 0;
  fake.setDefault((req): ScriptedReply | undefined => {
    if (req.json?.model !== model) return undefined;
    state.requests.push(req);
    state.steps++;
    if (state.steps > steps) return { content: 'Root cause: OOM kills of web pods after release R-2024.11 (exit code 137).' };
    const parallel = state.steps % 4 === 0 ? 2 : 1;
    return { toolCalls: Array.from({ length: parallel }, () => ({ name: 'read_log', arguments: JSON.stringify({ part: nextPart++ }) })) };
  });
  return state;
}
