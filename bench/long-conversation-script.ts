import type { BenchMessage } from './bench-recap.js';
import { prng } from './prng.js';

// The client side of the long-conversation benchmark, fixed by a seed: what the user says each
// turn and, every few turns, a tool exchange (an assistant tool call and its 1–4 KB JSON result)
// that the client appends before the next user message, as an agent loop does. The assistant's
// ordinary replies are not scripted: they come from the fake upstream.

export type ScriptMessage = BenchMessage;

export interface ScriptedTurn {
  /** Appended before `user`: an assistant tool call and its result, or nothing. */
  toolExchange: ScriptMessage[];
  user: ScriptMessage;
}

export const SYSTEM_PROMPT = 'You are the on-call assistant of the payments platform team. Answer precisely, cite identifiers, and say when you are unsure.';

const SERVICES = ['ledger', 'checkout', 'payouts', 'fraud-scorer', 'invoice-api', 'settlement', 'webhooks', 'refunds'];
const REGIONS = ['eu-west-1', 'us-east-2', 'ap-south-1', 'sa-east-1'];
const STATUSES = ['pending', 'settled', 'failed', 'disputed', 'refunded'];
const TOOLS = ['query_orders', 'read_logs', 'describe_deployment', 'list_alerts'];

function sentences(rand: () => number, turn: number) {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const n = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
  const templates: (() => string)[] = [
    () => `The ${pick(SERVICES)} service in ${pick(REGIONS)} shows p99 latency of ${n(120, 2400)} ms since release v${n(1, 9)}.${n(0, 30)}.`,
    () => `Order ORD-${n(10000, 99999)} is stuck in ${pick(STATUSES)} for customer cus_${n(1000, 9999)} with an amount of ${n(5, 9000)}.${n(10, 99)} EUR.`,
    () => `We decided to keep the retry budget of ${pick(SERVICES)} at ${n(2, 8)} attempts until the incident review.`,
    () => `Next we should compare the config in /srv/${pick(SERVICES)}/config/${pick(REGIONS)}.yaml with the one from last week.`,
    () => `Can you check whether the ${pick(SERVICES)} queue depth of ${n(100, 90000)} messages explains the timeouts?`,
    () => `The alert ALR-${n(100, 999)} fired ${n(2, 40)} times in the last hour and the on-call engineer acknowledged it at ${n(10, 23)}:${n(10, 59)}.`,
    () => `I need a short plan for the ${pick(SERVICES)} migration that keeps the ${pick(REGIONS)} traffic below ${n(20, 80)} percent.`,
    () => `The database replica db-${pick(REGIONS)}-${n(1, 6)} lags ${n(1, 300)} seconds behind the primary, which may affect reads in ${pick(SERVICES)}.`,
    () => `Is the failure rate of ${n(1, 19)}.${n(0, 9)} percent on ${pick(SERVICES)} higher than the baseline we agreed on?`,
    () => `Please write down that ticket OPS-${n(1000, 9999)} tracks the ${pick(SERVICES)} rollback for turn ${turn}.`,
  ];
  return { pick, n, text: (count: number) => Array.from({ length: count }, () => pick(templates)()).join(' ') };
}

/** A tool result of about `bytes` bytes: rows an ops tool would return. */
function toolResult(rand: () => number, tool: string, bytes: number): string {
  const s = sentences(rand, 0);
  const rows: unknown[] = [];
  const result = { tool, generated_at: `2024-05-${String(s.n(1, 28)).padStart(2, '0')}T${s.n(10, 23)}:${s.n(10, 59)}:00Z`, rows };
  // Bounded: every row adds well over 100 bytes, so 4 KB is reached within ~40 rows.
  while (JSON.stringify(result).length < bytes && rows.length < 100) {
    rows.push({
      id: `ORD-${s.n(10000, 99999)}`,
      service: s.pick(SERVICES),
      region: s.pick(REGIONS),
      status: s.pick(STATUSES),
      amount_eur: s.n(5, 9000) + s.n(0, 99) / 100,
      latency_ms: s.n(20, 3000),
      updated_at: `2024-05-${String(s.n(1, 28)).padStart(2, '0')}T${s.n(10, 23)}:${s.n(10, 59)}:${s.n(10, 59)}Z`,
    });
  }
  return JSON.stringify(result);
}

/** The whole conversation's client side: `turns` user messages, with tool exchanges every 2–4 turns. */
export function conversationScript(seed: number, turns: number): ScriptedTurn[] {
  const rand = prng(seed);
  const script: ScriptedTurn[] = [];
  let nextTool = 3;
  for (let turn = 1; turn <= turns; turn++) {
    const s = sentences(rand, turn);
    const toolExchange: ScriptMessage[] = [];
    if (turn === nextTool) {
      nextTool += s.n(2, 4);
      const id = `call_${turn}`;
      const name = s.pick(TOOLS);
      const args = JSON.stringify({ service: s.pick(SERVICES), region: s.pick(REGIONS), since_minutes: s.n(5, 240) });
      toolExchange.push(
        { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name, arguments: args } }] },
        { role: 'tool', tool_call_id: id, content: toolResult(rand, name, s.n(1024, 4096)) },
      );
    }
    script.push({ toolExchange, user: { role: 'user', content: `Turn ${turn}. ${s.text(s.n(3, 10))}` } });
  }
  return script;
}
