import { describe, expect, it } from 'vitest';
import { JsonScanError, arrayElements, documentMembers, valueEnd } from './scan.js';

const text = (buf: Buffer, s: { start: number; end: number }) => buf.toString('utf8', s.start, s.end);

describe('documentMembers', () => {
  it('finds each top-level member’s key and value bytes, in order, duplicates included', () => {
    const buf = Buffer.from(' {"model":"m", "me\\u0073sages" : [{"a":"}]\\"["}] ,"seed":9007199254740993,"model":"n","x":{"y":[1,{}]}} ');
    const members = documentMembers(buf);
    expect(members.map((m) => [m.key, text(buf, m.value)])).toEqual([
      ['model', '"m"'],
      ['messages', '[{"a":"}]\\"["}]'],
      ['seed', '9007199254740993'],
      ['model', '"n"'],
      ['x', '{"y":[1,{}]}'],
    ]);
  });

  it('reads UTF-8 keys and values by bytes', () => {
    const buf = Buffer.from('{"ключ":"значение","b":"😀"}');
    expect(documentMembers(buf).map((m) => [m.key, text(buf, m.value)])).toEqual([
      ['ключ', '"значение"'],
      ['b', '"😀"'],
    ]);
  });

  it.each(['{"a":1,}', '{"a" 1}', '{"a":1 "b":2}', '{1:2}', '{"a":1}x', '[1]', '{"a":"b'])('refuses %j', (doc) => {
    expect(() => documentMembers(Buffer.from(doc))).toThrow(JsonScanError);
  });
});

describe('arrayElements and valueEnd', () => {
  it('finds element spans, skipping strings with escaped quotes and backslashes', () => {
    const buf = Buffer.from('[ "a\\\\", {"b":"\\"]"} ,[[]], -1.5e3 ,true]');
    expect(arrayElements(buf, 0).items.map((s) => text(buf, s))).toEqual(['"a\\\\"', '{"b":"\\"]"}', '[[]]', '-1.5e3', 'true']);
  });

  it('says -1 for an object or array longer than the bound asked for', () => {
    const buf = Buffer.from('[[1,2,3],4]');
    expect(valueEnd(buf, 0, 5)).toBe(-1);
    expect(valueEnd(buf, 1, 7)).toBe(8);
  });
});
