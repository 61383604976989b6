import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readConversation } from './conversation-file.js';

const LIMIT = 1 << 20;

async function file(content: string | Buffer): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), 'recap-eval-')), 'conversation.json');
  await writeFile(path, content);
  return path;
}

describe('readConversation', () => {
  it('reads a chat request body, and a stateless Responses one', async () => {
    const chat = { model: 'm', messages: [{ role: 'user', content: 'hi' }], tools: [] };
    expect(await readConversation(await file(JSON.stringify(chat)), LIMIT)).toMatchObject({ route: { name: 'chat' }, body: chat });
    const responses = { model: 'm', instructions: 'Be brief.', input: [{ role: 'user', content: 'hi' }] };
    expect(await readConversation(await file(JSON.stringify(responses)), LIMIT)).toMatchObject({ route: { name: 'responses' }, body: responses });
  });

  it('says what is wrong with a bad file', async () => {
    await expect(readConversation('/nonexistent/conversation.json', LIMIT)).rejects.toThrow('/nonexistent/conversation.json: no such file');
    const notJson = await file('{"model": ');
    await expect(readConversation(notJson, LIMIT)).rejects.toThrow(`${notJson}: not JSON (`);
    const neither = await file('{"model": "m"}');
    await expect(readConversation(neither, LIMIT)).rejects.toThrow(`${neither}: not a request body: it has neither \`messages\` (chat completions) nor \`input\` (Responses)`);
    const badMessages = await file('{"model": "m", "messages": 3}');
    await expect(readConversation(badMessages, LIMIT)).rejects.toThrow(`${badMessages}: not a chat request body: \`messages\` must be an array of messages.`);
    const array = await file('[1, 2]');
    await expect(readConversation(array, LIMIT)).rejects.toThrow(`${array}: not a chat request body: The request body must be a JSON object.`);
    const empty = await file('{"model": "m", "messages": []}');
    await expect(readConversation(empty, LIMIT)).rejects.toThrow('`messages` is empty');
    const stateful = await file('{"model": "m", "input": [{"role": "user", "content": "hi"}], "previous_response_id": "resp_1"}');
    await expect(readConversation(stateful, LIMIT)).rejects.toThrow('without `previous_response_id` or `conversation`');
    const text = await file('{"model": "m", "input": "hi"}');
    await expect(readConversation(text, LIMIT)).rejects.toThrow('needs `input` as an array of items');
  });

  it('reads a file that starts with a UTF-8 BOM, and stops at the body limit', async () => {
    const chat = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };
    const withBom = await file(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(chat))]));
    expect(await readConversation(withBom, LIMIT)).toMatchObject({ route: { name: 'chat' }, body: chat });
    const big = await file(JSON.stringify({ ...chat, pad: 'x'.repeat(2_000) }));
    await expect(readConversation(big, 1_000)).rejects.toThrow(`${big}: larger than the body limit of 1000 bytes (server.body_limit_bytes)`);
  });
});
