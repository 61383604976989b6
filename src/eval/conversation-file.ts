import { FileError, readRequestFile } from '../cli/request-file.js';
import { isCompactable } from '../wire/responses/parse-request.js';
import { chatRoute, type EvalBody, type EvalRoute, messagesRoute, responsesRoute } from './routes.js';

// The FILE of `recap eval`: one whole conversation as a chat request body, a stateless
// Responses request body or an Anthropic Messages body, checked as the route that serves it checks a body, with errors that say
// what is wrong with the file.

export interface Conversation {
  route: EvalRoute;
  body: EvalBody;
}

/** The conversation in `file`, read up to `limit` bytes (the config's body limit). */
export async function readConversation(file: string, limit: number): Promise<Conversation> {
  const read = await readRequestFile(file, limit);
  if (read.route === 'messages') {
    if (read.body.messages.length === 0) throw new FileError(`${file}: not an Anthropic Messages request body: \`messages\` is empty`);
    return { route: messagesRoute, body: read.body };
  }
  if (read.route === 'chat') {
    if (read.body.messages.length === 0) throw new FileError(`${file}: not a chat request body: \`messages\` is empty`);
    return { route: chatRoute, body: read.body };
  }
  if (!isCompactable(read.body)) {
    throw new FileError(`${file}: not a conversation recap compacts: a Responses body needs \`input\` as an array of items, without \`previous_response_id\` or \`conversation\``);
  }
  if ((read.body.input as unknown[]).length === 0) throw new FileError(`${file}: not a Responses request body: \`input\` is empty`);
  return { route: responsesRoute, body: read.body };
}
