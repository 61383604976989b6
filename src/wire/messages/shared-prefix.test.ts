import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SHARED_PREFIX_MARKER } from '../../compaction/prompt.js';
import { type FakeAnthropic, startFakeAnthropic } from '../../dev/fake-anthropic.js';
import { messagesSharedPrefix, messagesSharedPrefixBody } from './shared-prefix.js';

const call = (keep: number) => ({ keep, instruction: `${SHARED_PREFIX_MARKER} Summarize.`, maxTokens: 600, tokenLimitField: 'max_tokens' as const });
const long = (tag: string) => `${tag}: ${'the build fails in src/app.ts on line 42. '.repeat(150)}`;
const CC = '"cache_control":{"type":"ephemeral"}';

// As a client (Claude Code) sends it: a breakpoint on the system prompt and on its last message.
function turn(messages: string[], stream = true): Buffer {
  return Buffer.from(
    `{"model":"claude-sonnet-4-5","max_tokens":8000,"stream":${stream},"system":[{"type":"text","text":${JSON.stringify(long('rules'))},${CC}}],` +
      `"tools":[{"name":"read","input_schema":{"type":"object"}}],"tool_choice":{"type":"auto"},"messages":[${messages.join(',')}]}`,
  );
}
const u1 = `{"role":"user","content":[{"type":"text","text":${JSON.stringify(long('task'))}}]}`;
const a1 = `{"role":"assistant","content":[{"type":"text","text":${JSON.stringify(long('found'))}}]}`;
const u2 = '{"role":"user","content":[{"type":"text","text":"go on"}]}';
const withBreakpoint = (m: string) => `${m.slice(0, -3)},${CC}}]}`;

describe('messagesSharedPrefixBody', () => {
  it('keeps system, tools and tool_choice; cuts messages as forwarded and puts a breakpoint on the span end; stream and max_tokens change', () => {
    const forwarded = turn([u1, a1, withBreakpoint(u2)]);
    const built = messagesSharedPrefixBody(forwarded, call(2)).toString();
    const head = forwarded.toString().slice(0, forwarded.indexOf(a1));
    // Up to the last message kept, the forwarded bytes; that message gains a breakpoint on its last block.
    expect(built).toContain(head.replace('"max_tokens":8000,"stream":true', '"max_tokens":600,"stream":false'));
    expect(built).toContain(`${withBreakpoint(a1)},{"role":"user","content":[{"type":"text","text":"${SHARED_PREFIX_MARKER} Summarize."}]}]}`);
    expect(built).toContain('"tool_choice":{"type":"auto"}');
    expect(built).not.toContain('go on');
  });

  it('adds no breakpoint for a client that caches nothing, nor past its count; the thinking budget is added to max_tokens; a forced tool call becomes none', () => {
    const plain = Buffer.from(`{"model":"m","max_tokens":10,"thinking":{"type":"enabled","budget_tokens":2000},"tool_choice":{"type":"any"},"messages":[${u1},${a1},${u2}]}`);
    const built = messagesSharedPrefixBody(plain, call(2)).toString();
    expect(built).not.toContain('cache_control');
    expect(built).toContain('"max_tokens":2600');
    expect(built).toContain('"tool_choice":{"type":"none"}');
    // The client's one breakpoint is kept in the prefix: no second one.
    const once = turn([withBreakpoint(u1), a1, u2])
      .toString()
      .replace(`,${CC}}],"tools"`, '}],"tools"');
    expect(messagesSharedPrefixBody(Buffer.from(once), call(2)).toString().split('cache_control').length - 1).toBe(1);
  });
});

describe('an Anthropic summarizer call on the cached prefix, on the fake', () => {
  let fake: FakeAnthropic;
  beforeEach(async () => {
    fake = await startFakeAnthropic();
  });
  afterEach(() => fake.close());

  const post = async (body: Buffer) =>
    (
      await fetch(`${fake.origin}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01' },
        body: new Uint8Array(body),
      })
    ).text();

  it('reads from the cache the prefix an earlier turn wrote, up to the span end, and its reply is a summary', async () => {
    // The turn that ended at the span's end wrote the prefix up to it; the last forwarded turn went further.
    const earlier = JSON.parse(await post(turn([u1, withBreakpoint(a1)], false)));
    expect(earlier.usage.cache_creation_input_tokens).toBeGreaterThan(1000);
    const forwarded = turn([u1, a1, withBreakpoint(u2)], false);
    await post(forwarded);
    const built = messagesSharedPrefixBody(forwarded, call(2));
    const reply = messagesSharedPrefix.readReply(await post(built));
    if (!reply.ok) throw new Error(reply.detail);
    expect(fake.summarizerRequests()).toHaveLength(1);
    expect(reply.text).toContain('## Goal');
    // Everything up to the span's end (tools, system, two messages) came from the cache, nothing was written.
    expect(reply.cachedTokens).toBe(earlier.usage.cache_creation_input_tokens + earlier.usage.cache_read_input_tokens);
    expect(reply.writtenTokens).toBe(0);
  });
});
