import { describe, expect, it } from 'vitest';
import { RecapError } from '../../errors.js';
import { noPause } from '../../slicing/slicer.js';
import { isCompactable, readResponsesRequest } from './parse-request.js';

// What the Responses route reads of a body (`model`, `input` and the keys that change what recap
// does) and which requests it may compact: docs/routes.md, "The Responses API".

const read = (text: string) => readResponsesRequest(Buffer.from(text), noPause);

async function refusal(text: string): Promise<{ status: number; code: string; param: string | null }> {
  const err = await read(text).then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof RecapError)) throw new Error(`expected a RecapError for ${text}, got ${String(err)}`);
  return { status: err.status, code: err.code, param: err.param };
}

describe('readResponsesRequest', () => {
  it('parses the body with its top-level spans, the raw bytes kept for splicing', async () => {
    const text = '{"model":"gpt-4.1","input":[{"role":"user","content":"hi"}],"seed":12345678901234567890}';
    const parsed = await read(text);
    expect(parsed.body.model).toBe('gpt-4.1');
    expect(parsed.body.input).toEqual([{ role: 'user', content: 'hi' }]);
    expect(parsed.raw.toString()).toBe(text);
    const input = parsed.members!.find((m) => m.key === 'input')!;
    expect(text.slice(input.value.start, input.value.end)).toBe('[{"role":"user","content":"hi"}]');
  });

  it.each([
    ['not an object', '[1,2]', null],
    ['no model', '{"input":"hi"}', 'model'],
    ['input of another type', '{"model":"m","input":{"role":"user"}}', 'input'],
    ['an input item that is not an object', '{"model":"m","input":[{"role":"user","content":"a"},"b"]}', 'input[1]'],
    ['a null input item', '{"model":"m","input":[null]}', 'input[0]'],
  ])('refuses %s with a 400 naming the parameter', async (_what, text, param) => {
    expect(await refusal(text)).toEqual({ status: 400, code: 'invalid_request', param });
  });

  it('refuses broken JSON with invalid_json', async () => {
    expect((await refusal('{"model":"m",')).code).toBe('invalid_json');
  });

  it.each(['model', 'input', 'instructions', 'tools', 'max_output_tokens', 'previous_response_id', 'conversation'])('refuses `%s` given twice', async (key) => {
    const value = key === 'input' || key === 'tools' ? '[]' : key === 'max_output_tokens' ? '10' : '"x"';
    const text = `{"model":"m","input":[],${key === 'model' || key === 'input' ? '' : `"${key}":${value},`}"${key}":${value}}`;
    expect(await refusal(text)).toEqual({ status: 400, code: 'invalid_request', param: key });
  });

  it('forwards a key recap does not read even when it is given twice: the upstream judges it', async () => {
    const parsed = await read('{"model":"m","input":[],"metadata":{"a":"1"},"metadata":{"b":"2"}}');
    expect(parsed.body.metadata).toEqual({ b: '2' });
  });
});

describe('isCompactable', () => {
  it('compacts a stateless input array, null state fields included', () => {
    expect(isCompactable({ model: 'm', input: [] })).toBe(true);
    expect(isCompactable({ model: 'm', input: [{ role: 'user', content: 'hi' }], previous_response_id: null, conversation: null })).toBe(true);
  });

  it('leaves alone what the provider keeps state for, and a plain string input', () => {
    expect(isCompactable({ model: 'm', input: [], previous_response_id: 'resp_1' })).toBe(false);
    expect(isCompactable({ model: 'm', input: [], conversation: 'conv_1' })).toBe(false);
    expect(isCompactable({ model: 'm', input: [], conversation: { id: 'conv_1' } })).toBe(false);
    expect(isCompactable({ model: 'm', input: 'hi' })).toBe(false);
    expect(isCompactable({ model: 'm' })).toBe(false);
  });
});
