import type { FakeUpstream } from '../../src/dev/fake-upstream.js';
import type { ChatMessage } from '../../src/messages/types.js';
import { logPart } from './agent-task.js';
import { prose } from './conversation.js';
import { type HarnessConfigOptions, SUMMARIZER, smallModel } from './harness.js';
import { rawRequest } from './plain-request.js';

// The traffic the dashboard is shown with, for its browser test and for the screenshots in docs/
// (bench/dashboard-screenshots.ts): two tenants; alpha's conversation that compacts, one on an
// audited model, an agent whose old tool results are cleared, a pasted log alone over the budget
// and one whose summaries fail (its over-budget turns degrade); bravo's short chat.

export const ALPHA_KEY = 'ck-alpha-5e7a9b1d3c2f4a6c8e0b1d3f5a7c9e2b';
export const BRAVO_KEY = 'ck-bravo-1f9d7e5c3a8b6e4c2a0f9d7b5e3c1a8f';
export const ADMIN_TOKEN = 'admin-token-ui-0123456789abcdef';

export const MODELS = { compacting: 'gpt-test-small', audited: 'gpt-test-audit', agent: 'gpt-test-agent' } as const;

/** The harness's models and clients; `extra` adds top-level sections (a store, say). */
export function dashboardConfig(extra: Record<string, unknown> = {}): HarnessConfigOptions {
  return {
    models: [
      smallModel(),
      { ...smallModel({ mode: 'audit' }), match: MODELS.audited },
      { match: MODELS.agent, context_window: 9000, max_output_tokens: 1000, compaction: { strategy: 'summarize', summarizer: { model: SUMMARIZER }, summary_max_tokens: 300 } },
    ],
    extra: {
      background: { enabled: false },
      server: { admin_token: ADMIN_TOKEN },
      clients: [
        { name: 'alpha', key: ALPHA_KEY },
        { name: 'bravo', key: BRAVO_KEY },
      ],
      ...extra,
    },
  };
}

export interface DashboardTraffic {
  /** The id of alpha's conversation that compacts (the client's text, shown as it is). */
  ticket: string;
  /** Said in its third turn: the summaries carry it. */
  decision: string;
}

export const AUDITED = 'audit-trial';
export const AGENT = 'agent-logs';
export const PASTE = 'pasted-log';
export const OUTAGE = 'summarizer-outage';
export const BRAVO = 'bravo-chat';
/** Requests sent by `sendDashboardTraffic`. */
export const REQUESTS = 26 + 26 + 20 + 1 + 22 + 3;
/** In the outage conversation's text: the fake summarizer fails what holds it. */
const OUTAGE_MARK = 'drill-7741';

async function chat(url: string, key: string, conversation: string, model: string, messages: unknown[]): Promise<string> {
  const r = await rawRequest(url, {
    target: '/v1/chat/completions',
    headers: { authorization: `Bearer ${key}`, 'x-conversation-id': conversation },
    body: { model, messages },
  });
  if (r.status !== 200) throw new Error(`${conversation}: recap answered ${r.status}: ${r.body.slice(0, 300)}`);
  return JSON.parse(r.body).choices[0].message.content as string;
}

/** One request per turn, each reply appended. */
async function converse(url: string, key: string, conversation: string, model: string, turns: number, extra: (t: number) => string = () => '') {
  const messages: ChatMessage[] = [{ role: 'system', content: 'You help the ops team.' }];
  for (let t = 1; t <= turns; t++) {
    messages.push({ role: 'user', content: `${prose(t)} ${extra(t)}`.trim() });
    messages.push({ role: 'assistant', content: await chat(url, key, conversation, model, messages) });
  }
}

/** An agent reading a log part by part: its old results are cleared, no summary needed. */
async function agent(url: string, key: string, conversation: string, steps: number) {
  const messages: unknown[] = [
    { role: 'system', content: 'You are an ops agent.' },
    { role: 'user', content: 'Read the deploy log part by part and report the root cause.' },
  ];
  for (let step = 0; step < steps; step++) {
    const id = `call_${step}`;
    messages.push({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'read_log', arguments: JSON.stringify({ part: step % 8 }) } }] });
    messages.push({ role: 'tool', tool_call_id: id, content: logPart([0, 1, 8, 9][step % 4]!) });
    await chat(url, key, conversation, MODELS.agent, messages);
  }
}

/** `fake` is the harness's upstream: its summarizer fails the outage conversation's summaries. */
export async function sendDashboardTraffic(url: string, fake: FakeUpstream, traffic: DashboardTraffic): Promise<void> {
  fake.setDefault((req) => (req.json?.model === SUMMARIZER && req.body.includes(OUTAGE_MARK) ? { status: 500 } : undefined));
  await converse(url, ALPHA_KEY, traffic.ticket, MODELS.compacting, 26, (t) => (t === 3 ? traffic.decision : ''));
  await converse(url, ALPHA_KEY, AUDITED, MODELS.audited, 26);
  await agent(url, ALPHA_KEY, AGENT, 20);
  // One step alone over the budget: forwarded as it is, counted over budget.
  await chat(url, ALPHA_KEY, PASTE, MODELS.compacting, [
    { role: 'system', content: 'You help the ops team.' },
    { role: 'user', content: [logPart(1), logPart(2), logPart(3), logPart(4)].join('\n') },
  ]);
  await converse(url, ALPHA_KEY, OUTAGE, MODELS.compacting, 22, (t) => (t === 3 ? `Outage ${OUTAGE_MARK}.` : ''));
  await converse(url, BRAVO_KEY, BRAVO, MODELS.compacting, 3);
}
