import { readFile } from 'node:fs/promises';
import { parseChatRequest } from '../chat/parse-request.js';
import { parseCommandArgs, UsageError } from './args.js';
import { type Config, createModelResolver, loadConfigFile } from '../config/config.js';
import { countRequest, type RequestCount } from '../tokens/count-request.js';

async function readInput(file: string): Promise<Buffer> {
  if (file !== '-') return readFile(file);
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const row = (label: string, role: string, tokens: number) => `${label.padStart(5)}  ${role.padEnd(10)}  ${String(tokens).padStart(6)}`;

/** The readable form: every row of the table, priming and tools included, adds up to the total. */
export function formatCount(result: RequestCount, model: string, matched: { match: string; encoding: string } | undefined): string {
  const lines = [
    `model:         ${model}${matched ? ` (config: ${matched.match}, ${matched.encoding})` : ' (no model config: o200k_base)'}`,
    `prompt tokens: ${result.prompt_tokens}`,
    `budget:        ${result.budget ?? 'n/a'}`,
    '',
    'index  role        tokens',
    ...result.messages.map((m) => row(String(m.index), m.role, m.tokens)),
    row('', '(priming)', result.priming_tokens),
  ];
  if (result.tools_tokens > 0) lines.push(row('', '(tools)', result.tools_tokens));
  lines.push(row('', 'total', result.prompt_tokens));
  return `${lines.join('\n')}\n`;
}

/** `recap count`: the prompt tokens and budget of a request body, as text or as the contract's JSON. */
export async function runCount(file: string, config: Config, json: boolean): Promise<string> {
  const body = parseChatRequest(await readInput(file));
  const model = createModelResolver(config.models)(body.model);
  const result = countRequest(body, model);
  return json ? `${JSON.stringify(result)}\n` : formatCount(result, body.model, model);
}

export async function countCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs('count', args, { config: { type: 'string' }, json: { type: 'boolean' } }, true);
  const [file, ...extra] = positionals;
  if (file === undefined) throw new UsageError('count needs a FILE (a chat request body as JSON, or - for stdin)');
  if (extra.length > 0) throw new UsageError(`count takes one FILE, got also '${extra.join(' ')}'`);
  process.stdout.write(await runCount(file, loadConfigFile(values.config), values.json ?? false));
}
