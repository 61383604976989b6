import { readFile } from 'node:fs/promises';
import { parseChatRequest } from '../chat/parse-request.js';
import { RecapError } from '../errors.js';
import type { ChatRequest } from '../messages/types.js';
import { parseResponsesRequest } from '../responses/parse-request.js';
import type { ResponsesRequest } from '../responses/types.js';

// A request body in a file, as `recap count` and `recap eval` read it: a chat request (`messages`)
// or a Responses request (`input`), checked as the route that serves it checks a body, with a
// one-line error that names the file and says what is wrong with it.

export type RequestFile = { route: 'chat'; body: ChatRequest } | { route: 'responses'; body: ResponsesRequest };

/** An error about the FILE a command was given: its message is the whole story, one line. */
export class FileError extends Error {
  override name = 'FileError';
}

async function readBytes(file: string): Promise<Buffer> {
  if (file === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }
  try {
    return await readFile(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : code === 'EACCES' ? 'permission denied' : (code ?? (err as Error).message);
    throw new FileError(`${file}: ${why}`);
  }
}

/** Which route a parsed body is for, by the array it carries. */
function routeOf(raw: Buffer): 'chat' | 'responses' | null {
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch {
    return 'chat';
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'chat';
  if ('messages' in value) return 'chat';
  return 'input' in value ? 'responses' : null;
}

export async function readRequestFile(file: string): Promise<RequestFile> {
  const raw = await readBytes(file);
  const route = routeOf(raw);
  if (route === null) throw new FileError(`${file}: not a request body: it has neither \`messages\` (chat completions) nor \`input\` (Responses)`);
  try {
    return route === 'chat' ? { route, body: parseChatRequest(raw) } : { route, body: parseResponsesRequest(raw) };
  } catch (err) {
    if (!(err instanceof RecapError)) throw err;
    if (err.code === 'invalid_json') throw new FileError(`${file}: not JSON (${err.message.replace(/^We could not parse the JSON body of your request: /, '')})`);
    throw new FileError(`${file}: not a ${route === 'chat' ? 'chat' : 'Responses'} request body: ${err.message}`);
  }
}
