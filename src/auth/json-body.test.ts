import { describe, expect, it } from 'vitest';
import { RecapError } from '../errors.js';
import { modelsOfJson, modelsOfUrlEncoded } from './json-body.js';

const codeOf = (f: () => unknown): string | undefined => {
  try {
    f();
    return undefined;
  } catch (err) {
    return err instanceof RecapError ? err.code : 'other';
  }
};

describe('modelsOfJson', () => {
  it('reads the models of strict UTF-8 JSON', () => {
    expect(modelsOfJson(Buffer.from('{"model":"m","x":{"model":"n"}}'), undefined)).toEqual(['m', 'n']);
    expect(modelsOfJson(Buffer.from('{"input":"no model"}'), 'UTF-8')).toEqual([]);
    expect(modelsOfJson(Buffer.from('["a", {"model":"m"}]'), undefined)).toEqual(['m']);
  });

  it.each([
    ['a byte-order mark', Buffer.from('\ufeff{"model":"m"}')],
    ['invalid UTF-8', Buffer.from([0x7b, 0xff, 0x7d])],
    ['not JSON', Buffer.from('{"model":"m",}')],
    ['a model that is not a string', Buffer.from('{"model":{"id":"m"}}')],
  ])('cannot be sure of %s', (_name, raw) => {
    expect(codeOf(() => modelsOfJson(raw, undefined))).toBe('model_unverifiable');
  });

  it('refuses a charset other than UTF-8, and `model` twice in any spelling', () => {
    expect(codeOf(() => modelsOfJson(Buffer.from('{"model":"m"}'), 'utf-16'))).toBe('model_unverifiable');
    expect(codeOf(() => modelsOfJson(Buffer.from('{"model":"m","Model":"n"}'), undefined))).toBe('invalid_request');
  });
});

describe('modelsOfUrlEncoded', () => {
  it('reads the `model` entries as a form parser does, and refuses two', () => {
    expect(modelsOfUrlEncoded(Buffer.from('{"a":"&model=m&":1}'))).toEqual(['m']);
    expect(modelsOfUrlEncoded(Buffer.from('mod%65l=m+n'))).toEqual(['m n']);
    expect(codeOf(() => modelsOfUrlEncoded(Buffer.from('model=a&MODEL=b')))).toBe('invalid_request');
  });
});
