import { createReadStream } from 'node:fs';
import { parseChatRequest } from '../wire/chat/parse-request.js';
import { RecapError } from '../errors.js';
import type { ChatRequest } from '../messages/types.js';
import { parseResponsesRequest } from '../wire/responses/parse-request.js';
import type { ResponsesRequest } from '../wire/responses/types.js';
import { parseMessagesRequest } from '../wire/messages/parse-request.js';
import type { MessagesRequest } from '../wire/messages/types.js';

// A request body in a file, as `recap count` and `recap eval` read it: a chat request (`messages`)
// or a Responses request (`input`), checked as the route that serves it checks a body, with a
// one-line error that names the file and says what is wrong with it. What is read is bounded by
// the config's body limit, as a request is: a FILE that is /dev/zero, or a pipe that never ends,
// stops at the limit instead of growing the process.

export type RequestFile = { route: 'chat'; body: ChatRequest } | { route: 'responses'; body: ResponsesRequest } | { route: 'messages'; body: MessagesRequest };

// Content blocks only Anthropic's Messages API has: a body with one of them, or a top-level
// `system`, is an Anthropic request.
const ANTHROPIC_BLOCKS = new Set(['tool_use', 'tool_result', 'thinking', 'redacted_thinking', 'document', 'server_tool_use']);

function isAnthropicBody(value: { system?: unknown; messages?: unknown }): boolean {
  if (value.system !== undefined) return true;
  if (!Array.isArray(value.messages)) return false;
  return value.messages.some((m) => Array.isArray(m?.content) && m.content.some((b: { type?: unknown } | null) => ANTHROPIC_BLOCKS.has(String(b?.type))));
}

/** An error about the FILE a command was given: its message is the whole story, one line. */
export class FileError extends Error {
  override name = 'FileError';
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

function describeFailure(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EISDIR') return 'is a directory';
  if (code === 'EACCES') return 'permission denied';
  return code ?? (err as Error).message;
}

/** At most `limit` bytes of `chunks`, or null when there are more (the rest is not read). */
async function readBounded(chunks: AsyncIterable<Buffer>, limit: number): Promise<Buffer | null> {
  const parts: Buffer[] = [];
  let size = 0;
  // Leaving the loop early destroys the stream: nothing more is read.
  for await (const chunk of chunks) {
    size += chunk.length;
    if (size > limit) return null;
    parts.push(chunk);
  }
  return Buffer.concat(parts, size);
}

async function readBytes(file: string, limit: number): Promise<Buffer> {
  const name = file === '-' ? 'stdin' : file;
  let bytes: Buffer | null;
  try {
    bytes = await readBounded(file === '-' ? process.stdin : createReadStream(file, { highWaterMark: 1 << 20 }), limit);
  } catch (err) {
    throw new FileError(`${name}: ${describeFailure(err)}`);
  }
  if (bytes === null) throw new FileError(`${name}: larger than the body limit of ${limit} bytes (server.body_limit_bytes)`);
  // Editors on Windows write one; JSON.parse would take it for a stray character.
  return bytes.subarray(0, 3).equals(BOM) ? bytes.subarray(3) : bytes;
}

/** Which route a parsed body is for, by the array it carries. */
function routeOf(raw: Buffer): RequestFile['route'] | null {
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch {
    return 'chat';
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'chat';
  if ('messages' in value) return isAnthropicBody(value) ? 'messages' : 'chat';
  return 'input' in value ? 'responses' : null;
}

/** The request body in `file` (`-`: stdin), read up to `limit` bytes. */
export async function readRequestFile(file: string, limit: number): Promise<RequestFile> {
  const raw = await readBytes(file, limit);
  const route = routeOf(raw);
  if (route === null) throw new FileError(`${file}: not a request body: it has neither \`messages\` (chat completions) nor \`input\` (Responses)`);
  try {
    if (route === 'messages') return { route, body: parseMessagesRequest(raw) };
    return route === 'chat' ? { route, body: parseChatRequest(raw) } : { route, body: parseResponsesRequest(raw) };
  } catch (err) {
    if (!(err instanceof RecapError)) throw err;
    if (err.code === 'invalid_json') throw new FileError(`${file}: not JSON (${err.message.replace(/^We could not parse the JSON body of your request: /, '')})`);
    throw new FileError(`${file}: not a ${{ chat: 'chat', responses: 'Responses', messages: 'Anthropic Messages' }[route]} request body: ${err.message}`);
  }
}
