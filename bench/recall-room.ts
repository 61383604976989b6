import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseConfig } from '../src/config/config.js';
import { startFakeUpstream } from '../src/dev/fake-upstream.js';
import { buildProbes } from '../src/eval/probes.js';
import { startRecap } from '../src/main.js';
import type { ChatMessage } from '../src/messages/types.js';
import { createLogger } from '../src/observability/logger.js';
import { taskHistory } from './agent-task-recall.js';
import { TOOLS } from './agent-task-script.js';
import { SUMMARIZER_MODEL } from './agent-task-variants.js';

// Recall near the budget: the agent task replayed through recap step by step at small windows, as
// its harness sends it (the whole history every step, so recap's checkpoints build as in use); at
// a few late steps, the identifiers recap's view no longer holds are asked for ("an identifier
// beginning with …", as `recap eval` asks), and the fake model, which knows only what it is sent,
// calls recap_recall when its prompt lacks the cue. Per probe: the room the view left (the
// request's budget less what recap forwarded) and whether the identifier came back. Once with no
// room kept for a recall answer (recall.answer_room_tokens 0), once with the default.

const MODEL = 'gpt-bench-recall';
/** Small windows: the smaller, the closer to the trigger a view runs between compactions. */
const WINDOWS = [
  { context_window: 16_384, max_output_tokens: 2_048 },
  { context_window: 8_192, max_output_tokens: 1_024 },
];
const LAST_STEP = 120;
/** Every step of the last 25: the view's room runs from what compaction leaves down to the trigger. */
const PROBE_STEPS = Array.from({ length: 25 }, (_, i) => LAST_STEP - 24 + i);
const PROBES_PER_STEP = 5;
/** The last step is probed more: the issue's figure is recall at the last step. */
const LAST_STEP_PROBES = 24;

interface ProbeRow {
  step: number;
  expected: string;
  room: number;
  recalls: number;
  recalled: boolean;
}

async function runWith(window: (typeof WINDOWS)[number], answerRoomTokens: number | undefined): Promise<ProbeRow[]> {
  const fake = await startFakeUpstream({ summarizerModel: SUMMARIZER_MODEL, maxRecorded: 4 });
  const config = parseConfig(
    JSON.stringify({
      server: { log_level: 'warn' },
      upstreams: { fake: { base_url: fake.url } },
      background: { enabled: false },
      models: [
        {
          match: MODEL,
          upstream: 'fake',
          ...window,
          compaction: { strategy: 'summarize', summarizer: { model: SUMMARIZER_MODEL } },
          recall: answerRoomTokens === undefined ? {} : { answer_room_tokens: answerRoomTokens },
        },
      ],
    }),
    'recall-room.json',
    {},
  );
  const recap = await startRecap(config, { port: 0, host: '127.0.0.1', logger: createLogger('warn') });
  const post = async (messages: unknown[]) => {
    const res = await fetch(`${recap.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench', 'x-conversation-id': 'recall-room' },
      body: JSON.stringify({ model: MODEL, messages, tools: TOOLS }),
    }).catch((err: unknown) => {
      throw new Error(`request failed: ${String((err as { cause?: unknown }).cause ?? err)}`);
    });
    const body = (await res.json()) as { choices?: { message?: { content?: string } }[] };
    if (res.status !== 200) throw new Error(`recap answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
    return { headers: res.headers, content: body.choices?.[0]?.message?.content ?? '' };
  };
  const rows: ProbeRow[] = [];
  try {
    for (let step = 1; step <= LAST_STEP; step++) {
      const history = taskHistory(step) as ChatMessage[];
      await post(history);
      if (!PROBE_STEPS.includes(step)) continue;
      const view = fake.chatRequests().at(-1)!.json.messages as ChatMessage[];
      const probes = buildProbes({ evicted: history.slice(2), kept: view, maxProbes: PROBES_PER_STEP * 4 })
        .filter((p) => p.kind === 'identifier')
        .slice(0, step === LAST_STEP ? LAST_STEP_PROBES : PROBES_PER_STEP);
      for (const probe of probes) {
        const { headers, content } = await post([...history, { role: 'user', content: probe.question }]);
        rows.push({
          step,
          expected: probe.expected[0]!,
          room: Number(headers.get('x-recap-budget')) - Number(headers.get('x-recap-tokens-out')),
          recalls: Number(headers.get('x-recap-recalls') ?? 0),
          recalled: probe.expected.some((e) => content.includes(e)),
        });
      }
    }
  } finally {
    await recap.close();
    await fake.close();
  }
  return rows;
}

const BUCKETS: [string, (room: number) => boolean][] = [
  ['< 150', (r) => r < 150],
  ['150–300', (r) => r >= 150 && r < 300],
  ['300–600', (r) => r >= 300 && r < 600],
  ['≥ 600', (r) => r >= 600],
];

function share(rows: readonly ProbeRow[]): string {
  if (rows.length === 0) return '–';
  const n = rows.filter((r) => r.recalled).length;
  return `${n}/${rows.length} (${Math.round((100 * n) / rows.length)}%)`;
}

/** `npm run bench -- recall-room`: the table, and bench/results/recall-room.json. */
export async function runRecallRoomBench(): Promise<void> {
  const runs: { window: number; room_kept: number | string; rows: ProbeRow[] }[] = [];
  for (const window of WINDOWS) {
    runs.push({ window: window.context_window, room_kept: 0, rows: await runWith(window, 0) });
    runs.push({ window: window.context_window, room_kept: 'default (500)', rows: await runWith(window, undefined) });
  }
  const lines = [
    `| window | room kept for a recall answer | probes | recalled at the last step (${LAST_STEP}) | all steps | ${BUCKETS.map(([b]) => `room ${b}`).join(' | ')} | least room |`,
    `| --- | --- | --- | --- | --- | ${BUCKETS.map(() => '---').join(' | ')} | --- |`,
  ];
  for (const { window, room_kept, rows } of runs) {
    const cells = BUCKETS.map(([, test]) => share(rows.filter((r) => test(r.room))));
    lines.push(
      `| ${window} | ${room_kept} | ${rows.length} | ${share(rows.filter((r) => r.step === LAST_STEP))} | ${share(rows)} | ${cells.join(' | ')} | ${Math.min(...rows.map((r) => r.room))} |`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  const out = join(import.meta.dirname, 'results', 'recall-room.json');
  await writeFile(out, `${JSON.stringify({ bench: 'recall-room', node: process.version, windows: WINDOWS, probe_steps: PROBE_STEPS, runs }, null, 2)}\n`);
}
