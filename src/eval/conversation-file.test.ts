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
  it('reads a chat request body', async () => {
    const body = { model: 'm', messages: [{ role: 'user', content: 'hi' }], tools: [] };
    expect(await readConversation(await file(JSON.stringify(body)))).toEqual(body);
  });

  it('says what is wrong with a bad file', async () => {
    await expect(readConversation('/nonexistent/conversation.json')).rejects.toThrow('/nonexistent/conversation.json: no such file');
    const notJson = await file('{"model": ');
    await expect(readConversation(notJson)).rejects.toThrow(`${notJson}: not JSON (`);
    const noMessages = await file('{"model": "m"}');
    await expect(readConversation(noMessages)).rejects.toThrow(`${noMessages}: not a chat request body: \`messages\` must be an array of messages.`);
    const array = await file('[1, 2]');
    await expect(readConversation(array)).rejects.toThrow(`${array}: not a chat request body: The request body must be a JSON object.`);
    const empty = await file('{"model": "m", "messages": []}');
    await expect(readConversation(empty)).rejects.toThrow('`messages` is empty');
  });
});
