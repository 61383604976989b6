import { readFile } from 'node:fs/promises';
import { parseChatRequest } from '../chat/parse-request.js';
import type { ChatRequest } from '../messages/types.js';
import { RecapError } from '../errors.js';

// The FILE of `recap eval`: one whole conversation as a chat request body, checked as recap's
// chat route checks a body, with errors that say what is wrong with the file.

export async function readConversation(file: string): Promise<ChatRequest> {
  let raw: Buffer;
  try {
    raw = await readFile(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(`${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : (code ?? (err as Error).message)}`);
  }
  let body: ChatRequest;
  try {
    body = parseChatRequest(raw);
  } catch (err) {
    if (!(err instanceof RecapError)) throw err;
    if (err.code === 'invalid_json') throw new Error(`${file}: not JSON (${err.message.replace(/^We could not parse the JSON body of your request: /, '')})`);
    throw new Error(`${file}: not a chat request body: ${err.message}`);
  }
  if (body.messages.length === 0) throw new Error(`${file}: not a chat request body: \`messages\` is empty`);
  return body;
}
