import { describe, expect, it } from 'vitest';
import { readChatRequest } from '../wire/chat/parse-request.js';
import type { ChatMessage } from '../messages/types.js';
import { noPause } from '../slicing/slicer.js';
import { replaceDocumentMembers, spliceArray, withMember } from './splice.js';

const CLIENT = `{ "seed" : 9007199254740993,
  "messages": [ {"role":"system","content":"be brief"} ,
    {"content":"h\\u00e9llo","role":"user","extra":1e400},{"role":"assistant","content":"x"},
    {"role":"user","content":"last"} ],
  "model":"m", "temperature": 1e400, "top_p": -0, "unknown": {"b":1,"a":[ ]} }`;

describe('spliceArray (chat messages)', () => {
  it('replaces only the messages, keeping every other byte and each kept message’s own bytes', async () => {
    const chat = await readChatRequest(Buffer.from(CLIENT), noPause);
    const [system, , , last] = chat.body.messages as [ChatMessage, ChatMessage, ChatMessage, ChatMessage];
    const summary: ChatMessage = { role: 'system', content: 'summary "quoted"' };
    const out = spliceArray(chat, 'messages', chat.body.messages, [system, summary, last]).toString('utf8');
    expect(out).toBe(
      `{ "seed" : 9007199254740993,
  "messages": [{"role":"system","content":"be brief"},{"role":"system","content":"summary \\"quoted\\""},{"role":"user","content":"last"}],
  "model":"m", "temperature": 1e400, "top_p": -0, "unknown": {"b":1,"a":[ ]} }`,
    );
  });

  it('keeps a kept message byte-identical even where JSON.parse loses information', async () => {
    const chat = await readChatRequest(Buffer.from(CLIENT), noPause);
    const user = chat.body.messages[1]!;
    expect(spliceArray(chat, 'messages', chat.body.messages, [user]).toString('utf8')).toContain('[{"content":"h\\u00e9llo","role":"user","extra":1e400}]');
  });

  it('writes client messages that follow each other in the view as in the body as one run where a bare comma parts them there; the array’s other separators are recap’s', async () => {
    const chat = await readChatRequest(Buffer.from(CLIENT), noPause);
    const [system, user, assistant, last] = chat.body.messages as [ChatMessage, ChatMessage, ChatMessage, ChatMessage];
    const summary: ChatMessage = { role: 'system', content: 's' };
    const kept = spliceArray(chat, 'messages', chat.body.messages, [system, summary, user, assistant, last]).toString('utf8');
    expect(kept).toContain(
      '[{"role":"system","content":"be brief"},{"role":"system","content":"s"},{"content":"h\\u00e9llo","role":"user","extra":1e400},{"role":"assistant","content":"x"},{"role":"user","content":"last"}]',
    );
    // Out of the body's order, each goes on its own.
    const swapped = spliceArray(chat, 'messages', chat.body.messages, [assistant, user]).toString('utf8');
    expect(swapped).toContain('[{"role":"assistant","content":"x"},{"content":"h\\u00e9llo","role":"user","extra":1e400}]');
  });

  it('writes an empty array when no message is kept', async () => {
    const chat = await readChatRequest(Buffer.from('{"model":"m","messages":[{"role":"user","content":"a"}]}'), noPause);
    expect(spliceArray(chat, 'messages', chat.body.messages, []).toString('utf8')).toBe('{"model":"m","messages":[]}');
  });
});

describe('withMember (an item recap changed one member of)', () => {
  const splice = async (messages: string, change: (m: ChatMessage) => ChatMessage) => {
    const chat = await readChatRequest(Buffer.from(`{"model":"m","messages":[${messages}]}`), noPause);
    return spliceArray(chat, 'messages', chat.body.messages, [change(chat.body.messages[0]!)]).toString('utf8');
  };

  it('is the client’s bytes with only that member’s value replaced', async () => {
    const out = await splice('{ "role":"tool","seq":9007199254740993, "content" : "long", "score":1e400,"ratio":-0 }', (m) => withMember(m, 'content', 'stub "q"'));
    expect(out).toBe('{"model":"m","messages":[{ "role":"tool","seq":9007199254740993, "content" : "stub \\"q\\"", "score":1e400,"ratio":-0 }]}');
  });

  it('replaces every copy of a key the client gave twice, and composes', async () => {
    const out = await splice('{"content":"a","role":"tool","content":"b","name":"x"}', (m) => withMember(withMember(m, 'content', 'c'), 'name', 'y'));
    expect(out).toBe('{"model":"m","messages":[{"content":"c","role":"tool","content":"c","name":"y"}]}');
  });

  it('adds a member the client did not send first', async () => {
    expect(await splice('{"role":"tool","n":1e400}', (m) => withMember(m, 'content', 's'))).toBe('{"model":"m","messages":[{"content":"s","role":"tool","n":1e400}]}');
  });

  it('is serialized whole when its base is not one of the client’s items', async () => {
    expect(await splice('{"role":"tool","n":1e400}', (m) => withMember({ ...m }, 'content', 's'))).toBe('{"model":"m","messages":[{"role":"tool","n":null,"content":"s"}]}');
  });
});

describe('spliceArray with an element appended, and replaceDocumentMembers', () => {
  const tool = '{"type":"function","function":{"name":"t"}}';
  const append = { key: 'tools', elementJson: tool };
  const spliced = async (text: string) => {
    const chat = await readChatRequest(Buffer.from(text), noPause);
    return spliceArray(chat, 'messages', chat.body.messages, chat.body.messages.slice(-1), append).toString();
  };
  const two = '[{"role":"user","content":"a"}, {"role":"user","content":"b"}]';

  it('appends after the client’s own elements, keeping every other byte, wherever the member is', async () => {
    expect(await spliced(`{ "seed": 9007199254740993, "tools": [ {"a":1e400} ] , "messages": ${two}, "model":"m" }`)).toBe(
      `{ "seed": 9007199254740993, "tools": [ {"a":1e400} ,${tool}] , "messages": [{"role":"user","content":"b"}], "model":"m" }`,
    );
    expect(await spliced(`{"model":"m","messages":${two},"tools":[ ]}`)).toBe(`{"model":"m","messages":[{"role":"user","content":"b"}],"tools":[ ${tool}]}`);
  });

  it('adds the member when it is absent or null', async () => {
    expect(await spliced(`{"model":"m","messages":${two} }`)).toBe(`{"model":"m","messages":[{"role":"user","content":"b"}] ,"tools":[${tool}]}`);
    expect(await spliced(`{"model":"m","tools":null,"messages":${two}}`)).toBe(`{"model":"m","tools":[${tool}],"messages":[{"role":"user","content":"b"}]}`);
  });

  it('replaces one member’s value and leaves the rest as written', () => {
    const raw = Buffer.from('{"id":"x", "n": 1e400, "usage": {"prompt_tokens": 1}}\n');
    expect(replaceDocumentMembers(raw, new Map([['usage', { prompt_tokens: 3 }]])).toString()).toBe('{"id":"x", "n": 1e400, "usage": {"prompt_tokens":3}}\n');
  });
});
