import { createOpenAI } from '@ai-sdk/openai';
import { generateText, type ModelMessage, streamText, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SUMMARY_MARKER } from '../src/compaction/summary-message.js';
import { carriesSummary, lastUpstreamRequest, sentConversations, startCompatHarness } from './helpers/client-compat.js';
import { prose } from './helpers/conversation.js';
import type { Harness } from './helpers/harness.js';

// The Vercel AI SDK's OpenAI provider pointed at recap: only the base URL and the conversation
// header differ from a direct setup. `.chat(model)` is the chat completions model, `.responses(model)`
// (the provider's default) the Responses model: recap compacts both. Each case checks what reached
// the upstream and what the app got.

let h: Harness;
beforeAll(async () => {
  h = await startCompatHarness();
});
afterAll(async () => h.close());

function provider(conversation: string) {
  return createOpenAI({ baseURL: `${h.recap.url}/v1`, apiKey: 'sk-ai-sdk-test', headers: { 'x-conversation-id': conversation } });
}

const podStatus = tool({
  description: 'Status of a Kubernetes pod',
  inputSchema: z.object({ pod: z.string(), namespace: z.string() }),
});

describe('Vercel AI SDK (@ai-sdk/openai chat model) through recap', () => {
  it('generates text without streaming', async () => {
    const result = await generateText({ model: provider('ai-plain').chat('gpt-test'), system: 'Be brief.', prompt: 'Which pods run checkout-api?' });

    expect(result.text).toBe('Echo: Which pods run checkout-api?. This is a deterministic reply from the fake upstream.');
    expect(result.response.headers?.['x-recap-action']).toBe('none');
    const { headers, body } = lastUpstreamRequest(h);
    expect(body.model).toBe('gpt-test');
    expect(body.stream).toBeFalsy();
    expect(body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Which pods run checkout-api?' },
    ]);
    expect(headers.authorization).toBe('Bearer sk-ai-sdk-test');
  });

  it('streams text', async () => {
    const result = streamText({ model: provider('ai-stream').chat('gpt-test'), prompt: 'Stream the rollout status of ORD-4411' });
    const parts: string[] = [];
    for await (const part of result.textStream) parts.push(part);

    expect(parts.length).toBeGreaterThan(1);
    expect(parts.join('')).toBe('Echo: Stream the rollout status of ORD-4411. This is a deterministic reply from the fake upstream.');
    expect(await result.finishReason).toBe('stop');
    expect(lastUpstreamRequest(h).body.stream).toBe(true);
  });

  it('returns a tool call with its arguments', async () => {
    h.fake.enqueue({ toolCalls: [{ name: 'get_pod_status', arguments: '{"pod":"checkout-api-6d9f","namespace":"prod"}' }] });

    const result = await generateText({ model: provider('ai-tool').chat('gpt-test'), tools: { get_pod_status: podStatus }, prompt: 'Is checkout-api-6d9f healthy?' });

    expect(result.finishReason).toBe('tool-calls');
    expect(result.toolCalls).toHaveLength(1);
    expect(result.toolCalls[0]).toMatchObject({ toolName: 'get_pod_status', input: { pod: 'checkout-api-6d9f', namespace: 'prod' } });
    const sentTool = lastUpstreamRequest(h).body.tools![0];
    expect(sentTool.function.name).toBe('get_pod_status');
    expect(sentTool.function.parameters.properties).toEqual({ pod: { type: 'string' }, namespace: { type: 'string' } });
  });

  it('streams a tool call with its arguments', async () => {
    h.fake.enqueue({ toolCalls: [{ name: 'get_pod_status', arguments: '{"pod":"billing-worker-2","namespace":"prod"}' }] });

    const result = streamText({ model: provider('ai-tool-stream').chat('gpt-test'), tools: { get_pod_status: podStatus }, prompt: 'And billing-worker-2?' });

    const calls = await result.toolCalls;
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ toolName: 'get_pod_status', input: { pod: 'billing-worker-2', namespace: 'prod' } });
    expect(lastUpstreamRequest(h).body.stream).toBe(true);
  });

  it('keeps a long conversation going on a small context window: the upstream gets a summary, the app its answers', async () => {
    const model = provider('ai-long').chat('gpt-test-small');
    const system = 'You are a terse assistant for the ops team.';
    const messages: ModelMessage[] = [];
    const actions: (string | undefined)[] = [];
    h.fake.reset();
    for (let turn = 1; turn <= 24; turn++) {
      messages.push({ role: 'user', content: prose(turn) });
      const result = await generateText({ model, system, messages });
      expect(result.text).toContain(`Echo: Turn ${turn}: order ORD-${1000 + turn}`);
      actions.push(result.response.headers?.['x-recap-action']);
      messages.push(...result.response.messages);
    }
    await h.recap.runtime.background.idle();

    const sent = sentConversations(h);
    expect(sent).toHaveLength(24);
    const compacted = sent.filter(carriesSummary);
    expect(compacted.length).toBeGreaterThan(0);
    for (const m of compacted) {
      expect(m[0]).toEqual({ role: 'system', content: system });
      expect(m.length).toBeLessThan(messages.length + 1);
    }
    expect(sent.at(-1)!.at(-1)!.content).toBe(prose(24));
    // The header the app sees matches what went upstream: a summary exactly when recap says it applied one.
    expect(actions.map((a) => a !== 'none')).toEqual(sent.map(carriesSummary));
    expect(actions.every((a) => a === 'none' || a === 'reused' || a === 'compacted')).toBe(true);
  });
});

describe('Vercel AI SDK (@ai-sdk/openai Responses model) through recap', () => {
  it('keeps a long conversation going on a small context window: the upstream gets a summary, the app its answers', async () => {
    const model = provider('ai-long-responses').responses('gpt-test-small');
    const system = 'You are a terse assistant for the ops team.';
    const messages: ModelMessage[] = [];
    h.fake.reset();
    for (let turn = 1; turn <= 24; turn++) {
      messages.push({ role: 'user', content: prose(turn) });
      const result = await generateText({ model, system, messages });
      expect(result.text).toContain(`Turn ${turn}: order ORD-${1000 + turn}`);
      messages.push(...result.response.messages);
    }
    await h.recap.runtime.background.idle();

    const sent = h.fake.responsesRequests().map((r) => (r.json as { input: { role?: string; content?: unknown }[] }).input);
    expect(sent).toHaveLength(24);
    const compacted = sent.filter((input) => JSON.stringify(input).includes(SUMMARY_MARKER));
    expect(compacted.length).toBeGreaterThan(0);
    for (const input of compacted) expect(input.length).toBeLessThan(messages.length + 1);
    expect(JSON.stringify(sent.at(-1)!.at(-1))).toContain(`order ORD-${1000 + 24}`);
  });
});
