// The input checks the fake makes as OpenAI does, on request bodies as clients send them.
import { describe, expect, it } from 'vitest';
import { encryptReasoning } from './fake-reasoning.js';
import { inputProblem } from './fake-responses-check.js';

const user = (text: string) => ({ role: 'user', content: text });
const call = (id: string) => ({ type: 'function_call', call_id: id, name: 'run', arguments: '{}' });
const output = (id: string) => ({ type: 'function_call_output', call_id: id, output: 'ok' });
const reasoning = (encrypted?: string) => ({ type: 'reasoning', id: 'rs_1', summary: [], ...(encrypted ? { encrypted_content: encrypted } : {}) });

const messageOf = (request: object) => inputProblem(request)?.error.message ?? null;

describe('tool calls and their outputs', () => {
  it('accepts calls answered after them, parallel ones and custom tool calls included', () => {
    const input = [
      user('go'),
      call('a'),
      call('b'),
      output('b'),
      output('a'),
      { type: 'custom_tool_call', call_id: 'c', name: 'patch', input: '*** diff' },
      { type: 'custom_tool_call_output', call_id: 'c', output: 'applied' },
      user('next'),
    ];
    expect(inputProblem({ model: 'm', input })).toBeNull();
  });

  it('refuses an output whose call is missing or comes after it, as OpenAI does', () => {
    expect(inputProblem({ input: [user('go'), output('a')] })).toEqual({
      error: { message: 'No tool call found for function call output with call_id a.', type: 'invalid_request_error', param: 'input', code: null },
    });
    expect(messageOf({ input: [output('a'), call('a')] })).toBe('No tool call found for function call output with call_id a.');
    expect(messageOf({ input: [call('a'), { type: 'custom_tool_call_output', call_id: 'a', output: 'x' }] })).toBe(
      'No tool call found for custom tool call output with call_id a.',
    );
  });

  it('refuses a call left without its output', () => {
    expect(messageOf({ input: [user('go'), call('a'), call('b'), output('a'), user('and?')] })).toBe('No tool output found for function call b.');
  });

  it('leaves pairing to the server when the request builds on stored state', () => {
    expect(inputProblem({ previous_response_id: 'resp_1', input: [output('a')] })).toBeNull();
    expect(inputProblem({ conversation: 'conv_1', input: [output('a')] })).toBeNull();
    expect(inputProblem({ input: [{ type: 'item_reference', id: 'fc_1' }, output('a')] })).toBeNull();
  });

  it('has nothing to say about a plain string input', () => {
    expect(inputProblem({ input: 'hello' })).toBeNull();
  });
});

describe('field types', () => {
  it('refuses a type, role, id or call_id that is not a string, as OpenAI does', () => {
    expect(inputProblem({ input: [user('go'), { type: { toString: 1 }, content: 'x' }] })).toEqual({
      error: {
        message: "Invalid type for 'input[1].type': expected a string, but got an object instead.",
        type: 'invalid_request_error',
        param: 'input[1].type',
        code: 'invalid_type',
      },
    });
    expect(messageOf({ input: [{ ...call('a'), call_id: ['a'] }] })).toBe("Invalid type for 'input[0].call_id': expected a string, but got an array instead.");
    expect(messageOf({ input: [{ role: 5, content: 'x' }] })).toBe("Invalid type for 'input[0].role': expected a string, but got a number instead.");
  });
});

describe('reasoning items', () => {
  it('accepts reasoning followed by the message or call it led to', () => {
    expect(inputProblem({ input: [user('go'), reasoning(), call('a'), output('a'), reasoning(), { role: 'assistant', content: 'done' }] })).toBeNull();
    expect(inputProblem({ input: [user('go'), reasoning(), { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'x' }] }] })).toBeNull();
  });

  it('refuses reasoning stranded at the end, before a user message or before a tool output', () => {
    const stranded = "Item 'rs_1' of type 'reasoning' was provided without its required following item.";
    expect(messageOf({ input: [user('go'), reasoning()] })).toBe(stranded);
    expect(messageOf({ input: [user('go'), reasoning(), user('again')] })).toBe(stranded);
    expect(messageOf({ input: [user('go'), call('a'), reasoning(), output('a')] })).toBe(stranded);
  });

  it('verifies encrypted content the fake minted, and takes other blobs on trust', () => {
    const minted = encryptReasoning('rs_1', ['plan the call']);
    expect(inputProblem({ input: [user('go'), reasoning(minted), call('a'), output('a')] })).toBeNull();
    expect(inputProblem({ input: [user('go'), reasoning('opaque-blob-from-a-test'), call('a'), output('a')] })).toBeNull();

    const edited = `${minted.slice(0, 20)}${minted[20] === 'A' ? 'B' : 'A'}${minted.slice(21)}`;
    for (const altered of [minted.slice(0, -8), edited, `${minted} `]) {
      expect(inputProblem({ input: [user('go'), reasoning(altered), call('a'), output('a')] })).toEqual({
        error: {
          message: `The encrypted content ${altered.slice(0, 4)}...${altered.slice(-4)} could not be verified.`,
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_encrypted_content',
        },
      });
    }
  });
});
