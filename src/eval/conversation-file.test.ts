import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readConversation } from './conversation-file.js';

async function file(content: string): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), 'recap-eval-')), 'conversation.json');
  await writeFile(path, content);
  return path;
}

describe('readConversation', () => {
  it('reads a chat request body, and a stateless Responses one', async () => {
    const chat = { model: 'm', messages: [{ role: 'user', content: 'hi' }], tools: [] };
    expect(await readConversation(await file(JSON.stringify(chat)))).toMatchObject({ route: { name: 'chat' }, body: chat });
    const responses = { model: 'm', instructions: 'Be brief.', input: [{ role: 'user', content: 'hi' }] };
    expect(await readConversation(await file(JSON.stringify(responses)))).toMatchObject({ route: { name: 'responses' }, body: responses });
  });

  it('says what is wrong with a bad file', async () => {
    await expect(readConversation('/nonexistent/conversation.json')).rejects.toThrow('/nonexistent/conversation.json: no such file');
    const notJson = await file('{"model": ');
    await expect(readConversation(notJson)).rejects.toThrow(`${notJson}: not JSON (`);
    const neither = await file('{"model": "m"}');
    await expect(readConversation(neither)).rejects.toThrow(`${neither}: not a request body: it has neither \`messages\` (chat completions) nor \`input\` (Responses)`);
    const badMessages = await file('{"model": "m", "messages": 3}');
    await expect(readConversation(badMessages)).rejects.toThrow(`${badMessages}: not a chat request body: \`messages\` must be an array of messages.`);
    const array = await file('[1, 2]');
    await expect(readConversation(array)).rejects.toThrow(`${array}: not a chat request body: The request body must be a JSON object.`);
    const empty = await file('{"model": "m", "messages": []}');
    await expect(readConversation(empty)).rejects.toThrow('`messages` is empty');
    const stateful = await file('{"model": "m", "input": [{"role": "user", "content": "hi"}], "previous_response_id": "resp_1"}');
    await expect(readConversation(stateful)).rejects.toThrow('without `previous_response_id` or `conversation`');
    const text = await file('{"model": "m", "input": "hi"}');
    await expect(readConversation(text)).rejects.toThrow('needs `input` as an array of items');
  });
});
