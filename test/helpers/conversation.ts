import { getEncoding } from 'js-tiktoken';
import type OpenAI from 'openai';

type Msg = OpenAI.Chat.Completions.ChatCompletionMessageParam;

const enc = getEncoding('o200k_base');

/** The cookbook's num_tokens_from_messages, written here independently of recap's counter. */
export function independentCount(messages: { role: string; content?: unknown; name?: string; tool_calls?: unknown }[]): number {
  let n = 3;
  for (const m of messages) {
    n += 3;
    if (typeof m.content === 'string') n += enc.encode(m.content).length;
    n += enc.encode(m.role).length;
    if (m.name) n += enc.encode(m.name).length + 1;
    if (Array.isArray(m.tool_calls))
      for (const c of m.tool_calls as { function: { name: string; arguments: string } }[]) n += enc.encode(c.function.name).length + enc.encode(c.function.arguments).length + 3;
  }
  return n;
}

/** Deterministic filler text of roughly `words` words, different per turn. */
export function prose(turn: number, words = 80): string {
  const vocab = [
    'deploy',
    'cluster',
    'invoice',
    'latency',
    'budget',
    'schema',
    'rollback',
    'ticket',
    'customer',
    'region',
    'metric',
    'feature',
    'release',
    'gateway',
    'payload',
    'migration',
  ];
  const out: string[] = [`Turn ${turn}: order ORD-${1000 + turn} in /srv/app/${turn}.json.`];
  for (let i = 0; i < words; i++) out.push(vocab[(turn * 7 + i * 3) % vocab.length]!);
  return `${out.join(' ')}.`;
}

/** Drives a conversation through the SDK, appending each reply; returns the transcript and response headers. */
export async function converse(
  client: OpenAI,
  opts: { model: string; rounds: number; system?: string; words?: number; afterTurn?: () => Promise<void> },
): Promise<{ messages: Msg[]; actions: (string | null)[] }> {
  const messages: Msg[] = [{ role: 'system', content: opts.system ?? 'You are a terse assistant for the ops team.' }];
  const actions: (string | null)[] = [];
  for (let turn = 1; turn <= opts.rounds; turn++) {
    messages.push({ role: 'user', content: prose(turn, opts.words) });
    const { data, response } = await client.chat.completions.create({ model: opts.model, messages }).withResponse();
    const action = response.headers.get('x-recap-action');
    actions.push(action);
    messages.push({ role: 'assistant', content: data.choices[0]!.message.content ?? '' });
    await opts.afterTurn?.();
  }
  return { messages, actions };
}

/**
 * 30 rounds of `prose()` after a system message and a last question: over the budget of `smallModel()`, so the request compacts.
 * `evictedExtra` is appended to turn 2's user message, the first one compaction evicts: turn 1's is the opening task, kept verbatim (rule 1).
 */
export function overBudgetHistory(evictedExtra = ''): Msg[] {
  const messages: Msg[] = [{ role: 'system', content: 'ops' }];
  for (let t = 1; t <= 30; t++) messages.push({ role: 'user', content: `${prose(t)}${t === 2 ? evictedExtra : ''}` }, { role: 'assistant', content: `ok ${t}` });
  messages.push({ role: 'user', content: 'what next?' });
  return messages;
}

/**
 * How many checkpoints recap holds for a conversation, as its owner sees them through the inspection
 * API, once the turn that made one has settled it: a provisional checkpoint is confirmed or taken
 * back just after its turn's reply reached the client, so a read right after that reply waits for it.
 * `route`: the route whose records to count (`chat` or `responses`).
 */
export async function storedCheckpoints(recapUrl: string, conversation: string, apiKey = 'sk-test-key', route = 'chat'): Promise<number> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const res = await fetch(`${recapUrl}/recap/v1/conversations/${encodeURIComponent(conversation)}?route=${route}`, { headers: { authorization: `Bearer ${apiKey}` } });
    if (res.status === 404) return 0;
    if (res.status !== 200) throw new Error(`inspection answered ${res.status}`);
    const { checkpoints } = (await res.json()) as { checkpoints: { provisional: boolean }[] };
    if (!checkpoints.some((cp) => cp.provisional) || Date.now() > deadline) return checkpoints.length;
    await new Promise((r) => setTimeout(r, 20));
  }
}
