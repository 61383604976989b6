import { describe, expect, it } from 'vitest';
import { responsesStreamEnd } from './stream-end.js';

const event = (type: string, named = true, extra = '') => responsesStreamEnd({ data: `{"type":"${type}","sequence_number":3${extra}}`, ...(named ? { event: type } : {}) });

describe('responsesStreamEnd', () => {
  it('ends at the final state of the response, named or only typed in the data', () => {
    for (const named of [true, false]) {
      expect(event('response.completed', named)).toBe('success');
      expect(event('response.incomplete', named)).toBe('success');
      expect(event('response.failed', named)).toBe('failure');
      expect(event('error', named, ',"code":"server_error","message":"x"')).toBe('failure');
      expect(event('response.output_text.delta', named, ',"delta":"hi"')).toBeUndefined();
    }
  });

  it('reads a type that is not first in the data, and no name as a property of Object', () => {
    expect(responsesStreamEnd({ data: '{"sequence_number":9,"type":"response.completed"}' })).toBe('success');
    expect(responsesStreamEnd({ data: '{"type":"constructor"}', event: 'constructor' })).toBeUndefined();
  });

  it('fails at any event carrying an error, as the SDK raises it', () => {
    expect(responsesStreamEnd({ data: '{"error":{"message":"x"}}', event: 'response.output_text.delta' })).toBe('failure');
  });
});
