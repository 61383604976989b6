import { AIMessage, type AIMessageChunk, type BaseMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { prose } from './helpers/conversation.js';
import { carriesSummary, lastUpstreamRequest, sentConversations, startCompatHarness } from './helpers/client-compat.js';
import type { Harness } from './helpers/harness.js';

// LangChain's ChatOpenAI pointed at recap: only the base URL and the conversation header differ
// from a direct OpenAI setup. Each case checks what reached the upstream and what the app got.

let h: Harness;
beforeAll(async () => {
  h = await startCompatHarness();
});
afterAll(async () => h.close());

function chat(model: string, conversation: string): ChatOpenAI {
  return new ChatOpenAI({
    model,
    apiKey: 'sk-langchain-test',
    configuration: { baseURL: `${h.recap.url}/v1`, defaultHeaders: { 'x-conversation-id': conversation } },
  });
}

describe('LangChain ChatOpenAI through recap', () => {
  it('invokes without streaming', async () => {
    const reply = await chat('gpt-test', 'lc-plain').invoke([new SystemMessage('Be brief.'), new HumanMessage('Which pods run checkout-api?')]);

    expect(reply.content).toBe('Echo: Which pods run checkout-api?. This is a deterministic reply from the fake upstream.');
    const { headers, body } = lastUpstreamRequest(h);
    expect(body.model).toBe('gpt-test');
    expect(body.stream).toBeFalsy();
    expect(body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Which pods run checkout-api?' },
    ]);
    expect(headers.authorization).toBe('Bearer sk-langchain-test');
  });

  it('streams', async () => {
    const chunks: string[] = [];
    for await (const chunk of await chat('gpt-test', 'lc-stream').stream([new HumanMessage('Stream the rollout status of ORD-4411')])) {
      chunks.push(String(chunk.content));
    }

    expect(chunks.filter(Boolean).length).toBeGreaterThan(1);
    expect(chunks.join('')).toBe('Echo: Stream the rollout status of ORD-4411. This is a deterministic reply from the fake upstream.');
    expect(lastUpstreamRequest(h).body.stream).toBe(true);
  });

  it('returns a tool call with its arguments', async () => {
    const podStatus = tool(async () => 'Running', {
      name: 'get_pod_status',
      description: 'Status of a Kubernetes pod',
      schema: z.object({ pod: z.string(), namespace: z.string() }),
    });
    h.fake.enqueue({ toolCalls: [{ name: 'get_pod_status', arguments: '{"pod":"checkout-api-6d9f","namespace":"prod"}' }] });

    const reply = await chat('gpt-test', 'lc-tool')
      .bindTools([podStatus])
      .invoke([new HumanMessage('Is checkout-api-6d9f healthy?')]);

    expect(reply.tool_calls).toHaveLength(1);
    expect(reply.tool_calls![0]).toMatchObject({ name: 'get_pod_status', args: { pod: 'checkout-api-6d9f', namespace: 'prod' } });
    const sentTool = lastUpstreamRequest(h).body.tools![0];
    expect(sentTool.function.name).toBe('get_pod_status');
    expect(sentTool.function.parameters.properties).toEqual({ pod: { type: 'string' }, namespace: { type: 'string' } });
  });

  it('streams a tool call with its arguments', async () => {
    const podStatus = tool(async () => 'Running', {
      name: 'get_pod_status',
      description: 'Status of a Kubernetes pod',
      schema: z.object({ pod: z.string(), namespace: z.string() }),
    });
    h.fake.enqueue({ toolCalls: [{ name: 'get_pod_status', arguments: '{"pod":"billing-worker-2","namespace":"prod"}' }] });

    let merged: AIMessageChunk | undefined;
    for await (const chunk of await chat('gpt-test', 'lc-tool-stream')
      .bindTools([podStatus])
      .stream([new HumanMessage('And billing-worker-2?')])) {
      merged = merged ? merged.concat(chunk) : chunk;
    }

    expect(merged!.tool_calls).toHaveLength(1);
    expect(merged!.tool_calls![0]).toMatchObject({ name: 'get_pod_status', args: { pod: 'billing-worker-2', namespace: 'prod' } });
  });

  it('keeps a long conversation going on a small context window: the upstream gets a summary, the app its answers', async () => {
    const model = chat('gpt-test-small', 'lc-long');
    const history: BaseMessage[] = [new SystemMessage('You are a terse assistant for the ops team.')];
    h.fake.reset();
    for (let turn = 1; turn <= 24; turn++) {
      history.push(new HumanMessage(prose(turn)));
      const reply = await model.invoke(history);
      expect(reply.content).toContain(`Echo: Turn ${turn}: order ORD-${1000 + turn}`);
      history.push(new AIMessage(String(reply.content)));
    }
    await h.recap.runtime.background.idle();

    const sent = sentConversations(h);
    expect(sent).toHaveLength(24);
    const compacted = sent.filter(carriesSummary);
    expect(compacted.length).toBeGreaterThan(0);
    for (const messages of compacted) {
      expect(messages[0]).toEqual({ role: 'system', content: 'You are a terse assistant for the ops team.' });
      expect(messages.length).toBeLessThan(history.length);
    }
    expect(sent.at(-1)!.at(-1)!.content).toBe(prose(24));
    expect(h.fake.summarizerRequests().length).toBeGreaterThan(0);
  });
});
