import { afterEach, describe, expect, it } from 'vitest';
import { SHARED_PREFIX_MARKER } from '../../compaction/prompt.js';
import { type FakeUpstream, startFakeUpstream } from '../../dev/fake-upstream.js';
import { createPromptCache } from '../../dev/prompt-cache.js';
import { responsesSharedPrefix, responsesSharedPrefixBody } from './shared-prefix.js';

const call = (keep: number, instruction: string) => ({ keep, instruction, maxTokens: 700, tokenLimitField: 'max_tokens' as const });

describe('responsesSharedPrefixBody', () => {
  it('is the forwarded body up to the span end as sent, then the instruction; stream, the limit, tool_choice and store change', () => {
    const forwarded = Buffer.from(
      '{"model":"gpt-4.1","instructions":"Be brief.","stream":true,"seed":1e400,"tools":[{"type":"function","name":"read"}],' +
        '"input":[{"role":"user","content":"task"},  {"type":"function_call","call_id":"c1","name":"read","arguments":"{}"},' +
        '{"type":"function_call_output","call_id":"c1","output":"x"},{"role":"user","content":"next"}],"max_output_tokens":9000}',
    );
    const built = responsesSharedPrefixBody(forwarded, call(3, 'Summarize.')).toString();
    expect(built).toBe(
      '{"store":false,"tool_choice":"none","model":"gpt-4.1","instructions":"Be brief.","stream":false,"seed":1e400,"tools":[{"type":"function","name":"read"}],' +
        '"input":[{"role":"user","content":"task"},  {"type":"function_call","call_id":"c1","name":"read","arguments":"{}"},' +
        '{"type":"function_call_output","call_id":"c1","output":"x"},{"role":"user","content":"Summarize."}],"max_output_tokens":700}',
    );
  });
});

describe('structured output', () => {
  it('asks for text where the body asks for JSON, its other text options kept', () => {
    const json = Buffer.from('{"model":"m","text":{"format":{"type":"json_schema","name":"x","schema":{}},"verbosity":"low"},"input":[{"role":"user","content":"a"}]}');
    expect(JSON.parse(responsesSharedPrefixBody(json, call(1, 'sum')).toString()).text).toEqual({ format: { type: 'text' }, verbosity: 'low' });
  });
});

describe('a Responses summarizer call on the cached prefix, on a caching fake upstream', () => {
  let upstream: FakeUpstream | undefined;
  afterEach(async () => {
    await upstream?.close();
    upstream = undefined;
  });

  it('is read from the cache up to the span end, and its reply is a summary', async () => {
    const cache = createPromptCache({ mode: 'automatic' });
    const blocksOf = (json: { instructions?: unknown; input: unknown[] }) =>
      [json.instructions ?? '', ...json.input].map((m) => {
        const key = JSON.stringify(m);
        return { key, tokens: Math.ceil(key.length / 4) };
      });
    upstream = await startFakeUpstream({
      promptTokens: (r) => blocksOf(r.json).reduce((n, b) => n + b.tokens, 0),
      cachedTokens: (r) => cache.send(r.json.model, blocksOf(r.json), r.receivedAt).cached,
    });
    const long = (tag: string) => `${tag}: ${'the build fails in src/app.ts on line 42. '.repeat(120)}`;
    const forwarded = Buffer.from(
      JSON.stringify({
        model: 'gpt-4.1',
        instructions: long('rules'),
        stream: true,
        input: [
          { role: 'user', content: long('task') },
          { role: 'assistant', content: long('found') },
          { role: 'user', content: 'next step' },
        ],
      }),
    );
    const post = (body: Buffer) => fetch(`${upstream!.url}/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: new Uint8Array(body) });
    await (await post(forwarded)).text();
    const built = responsesSharedPrefixBody(forwarded, call(2, `${SHARED_PREFIX_MARKER} Summarize.`));
    const text = built.toString();
    const spanEnd = forwarded.toString().indexOf(',{"role":"user","content":"next step"}');
    expect(text).toContain(forwarded.subarray(forwarded.indexOf('"input":'), spanEnd).toString());
    const reply = responsesSharedPrefix.readReply(await (await post(built)).text());
    if (!reply.ok) throw new Error(reply.detail);
    // The fake took it for a summarizer call and summarized the conversation above the instruction.
    expect(upstream.summarizerRequests()).toHaveLength(1);
    expect(reply.text).toContain('## Goal');
    const prefix = blocksOf(JSON.parse(text))
      .slice(0, 3)
      .reduce((n, b) => n + b.tokens, 0);
    expect(reply.cachedTokens).toBe(1024 + Math.floor((prefix - 1024) / 128) * 128);
  });
});
