import type { Writable } from 'node:stream';
import type OpenAI from 'openai';
import { exchangeFor, SYSTEM_PROMPT } from './scenario.js';
import { type Action, tableHeader, tableRow, type TurnResult } from './turn-table.js';

type Message = OpenAI.Chat.Completions.ChatCompletionMessageParam;

export interface DriveOptions {
  client: OpenAI;
  turns: number;
  model: string;
  /** Called with the assistant's scripted answer before each turn is sent. */
  onReply(content: string): void;
  betweenTurns(): Promise<void>;
  out: Writable;
}

/** Sends the whole history each turn, as a chat application does, and prints a row per turn. */
export async function driveConversation(opts: DriveOptions): Promise<TurnResult[]> {
  const messages: Message[] = [{ role: 'system', content: SYSTEM_PROMPT }];
  const results: TurnResult[] = [];
  opts.out.write(tableHeader());
  for (let turn = 1; turn <= opts.turns; turn++) {
    const exchange = exchangeFor(turn);
    opts.onReply(exchange.assistant);
    messages.push({ role: 'user', content: exchange.user });
    const started = performance.now();
    const { data, response } = await opts.client.chat.completions.create({ model: opts.model, messages }).withResponse();
    const latencyMs = performance.now() - started;
    messages.push({ role: 'assistant', content: data.choices[0]?.message.content ?? '' });
    const result: TurnResult = {
      turn,
      tokensIn: Number(response.headers.get('x-recap-tokens-in')),
      tokensOut: Number(response.headers.get('x-recap-tokens-out')),
      action: (response.headers.get('x-recap-action') ?? 'none') as Action,
      latencyMs,
    };
    results.push(result);
    opts.out.write(tableRow(result));
    if (turn < opts.turns) await opts.betweenTurns();
  }
  return results;
}
