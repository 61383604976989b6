import { readFile } from 'node:fs/promises';
import { parseChatRequest } from './chat/parse-request.js';
import { type Config, createModelResolver } from './config.js';
import { countRequest } from './tokens/count-request.js';

async function readInput(file: string): Promise<Buffer> {
  if (file !== '-') return readFile(file);
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** `recap count`: the prompt tokens and budget of a request body, as text or as the contract's JSON. */
export async function runCount(file: string, config: Config, json: boolean): Promise<string> {
  const body = parseChatRequest(await readInput(file));
  const model = createModelResolver(config.models)(body.model);
  const result = countRequest(body, model);
  if (json) return `${JSON.stringify(result)}\n`;
  const lines = [
    `model:         ${body.model}${model ? ` (config: ${model.match}, ${model.encoding})` : ' (no model config: o200k_base)'}`,
    `prompt tokens: ${result.prompt_tokens}`,
    `budget:        ${result.budget ?? 'n/a'}`,
    '',
    'index  role        tokens',
    ...result.messages.map((m) => `${String(m.index).padStart(5)}  ${m.role.padEnd(10)}  ${String(m.tokens).padStart(6)}`),
  ];
  return `${lines.join('\n')}\n`;
}
