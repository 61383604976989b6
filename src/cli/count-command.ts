import { type Config, createModelResolver, loadConfigFile, type ModelConfig } from '../config/config.js';
import { countResponsesRequest, inputItems } from '../wire/responses/count.js';
import type { ResponsesRequest } from '../wire/responses/types.js';
import { countMessagesRequest } from '../wire/messages/count.js';
import type { MessagesRequest } from '../wire/messages/types.js';
import { resolveBudget } from '../tokens/budget.js';
import { countRequest, type RequestCount } from '../tokens/count-request.js';
import { createTokenCounter, type TokenCounter } from '../tokens/counter.js';
import type { EncodingName } from '../tokens/encodings.js';
import { parseCommandArgs, UsageError } from './args.js';
import { readRequestFile } from './request-file.js';

/** A Responses body's count: its `instructions` (an Anthropic body's `system`) are a row of their own (a leading system message). */
export type CountResult = RequestCount & { instructions_tokens?: number };

const row = (label: string, role: string, tokens: number) => `${label.padStart(5)}  ${role.padEnd(20)}  ${String(tokens).padStart(6)}`;

/** The readable form: every row of the table, priming and tools included, adds up to the total. */
export function formatCount(result: CountResult, model: string, matched: { match: string; encoding: string } | undefined): string {
  const lines = [
    `model:         ${model}${matched ? ` (config: ${matched.match}, ${matched.encoding})` : ' (no model config: o200k_base)'}`,
    `prompt tokens: ${result.prompt_tokens}`,
    `budget:        ${result.budget ?? 'n/a'}`,
    '',
    `index  ${'role'.padEnd(20)}  tokens`,
  ];
  if (result.instructions_tokens !== undefined) lines.push(row('', '(instructions)', result.instructions_tokens));
  lines.push(...result.messages.map((m) => row(String(m.index), m.role, m.tokens)), row('', '(priming)', result.priming_tokens));
  if (result.tools_tokens > 0) lines.push(row('', '(tools)', result.tools_tokens));
  lines.push(row('', 'total', result.prompt_tokens));
  return `${lines.join('\n')}\n`;
}

/** A Responses request counted as the /v1/responses route counts it (responses/count.ts), uncalibrated. */
async function countResponses(body: ResponsesRequest, model: ModelConfig | undefined): Promise<CountResult> {
  const counters = new Map<EncodingName, TokenCounter>();
  const counterFor = (encoding: EncodingName) => counters.get(encoding) ?? counters.set(encoding, createTokenCounter({ encoding })).get(encoding)!;
  const counted = await countResponsesRequest({ counterFor, scaleFor: () => (t) => t }, body, model);
  const items = inputItems(body);
  return {
    prompt_tokens: counted.tokensIn,
    budget: model === undefined ? null : resolveBudget(model, body, counted.toolsTokens).prompt,
    priming_tokens: counted.fixedTokens - counted.instructionsTokens,
    tools_tokens: counted.toolsTokens,
    instructions_tokens: counted.instructionsTokens,
    messages: counted.perItem.map((tokens, index) => {
      const item = items[index] as { role?: unknown; type?: unknown } | undefined;
      return { index, role: String(item?.role ?? item?.type ?? ''), tokens };
    }),
  };
}

/** An Anthropic Messages request counted as the /v1/messages route counts it (wire/messages/count.ts), uncalibrated: `system` is a row of its own. */
async function countMessages(body: MessagesRequest, model: ModelConfig | undefined): Promise<CountResult> {
  const counters = new Map<EncodingName, TokenCounter>();
  const counterFor = (encoding: EncodingName) => counters.get(encoding) ?? counters.set(encoding, createTokenCounter({ encoding })).get(encoding)!;
  const counted = await countMessagesRequest({ counterFor, scaleFor: () => (t) => t }, body, model);
  return {
    prompt_tokens: counted.tokensIn,
    budget: model === undefined ? null : resolveBudget(model, body, counted.toolsTokens).prompt,
    priming_tokens: counted.fixedTokens - counted.systemTokens,
    tools_tokens: counted.toolsTokens,
    instructions_tokens: counted.systemTokens,
    messages: counted.perItem.map((tokens, index) => ({ index, role: String(body.messages[index]?.role ?? ''), tokens })),
  };
}

/** `recap count`: the prompt tokens and budget of a request body, as text or as the contract's JSON. */
export async function runCount(file: string, config: Config, json: boolean): Promise<string> {
  const read = await readRequestFile(file, config.server.body_limit_bytes);
  const model = createModelResolver(config.models)(read.body.model);
  const result =
    read.route === 'chat' ? countRequest(read.body, model) : read.route === 'messages' ? await countMessages(read.body, model) : await countResponses(read.body, model);
  return json ? `${JSON.stringify(result)}\n` : formatCount(result, read.body.model, model);
}

export async function countCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs('count', args, { config: { type: 'string' }, json: { type: 'boolean' } }, true);
  const [file, ...extra] = positionals;
  if (file === undefined) throw new UsageError('count needs a FILE (a chat, Responses or Anthropic Messages request body as JSON, or - for stdin)');
  if (extra.length > 0) throw new UsageError(`count takes one FILE, got also '${extra.join(' ')}'`);
  process.stdout.write(await runCount(file, loadConfigFile(values.config), values.json ?? false));
}
