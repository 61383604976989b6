import { describe, expect, it } from 'vitest';
import { newRequestLog } from '../observability/request-log.js';
import { errorType, pathOnly, requestAttributes, requestFailed, spanName, truncate } from './attributes.js';

describe('span attributes', () => {
  it('carry the route, both model names, the action, tokens and status of a chat request', () => {
    const log = {
      ...newRequestLog('POST', '/v1/chat/completions'),
      status: 200,
      model: 'gpt-4o-2024',
      modelLabel: 'gpt-4o*',
      action: 'compacted',
      tokensIn: 9000,
      tokensOut: 1200,
      conversation: 'ab12cd',
      outcome: 'complete',
      upstreamStatus: 200,
    };
    expect(spanName(log)).toBe('POST /v1/chat/completions');
    expect(requestAttributes(log)).toEqual({
      'http.request.method': 'POST',
      'http.route': '/v1/chat/completions',
      'http.response.status_code': 200,
      'gen_ai.request.model': 'gpt-4o-2024',
      'recap.model': 'gpt-4o*',
      'recap.action': 'compacted',
      'recap.tokens_in': 9000,
      'recap.tokens_out': 1200,
      'recap.conversation': 'ab12cd',
      'recap.outcome': 'complete',
      'recap.upstream_status': 200,
    });
    expect(requestFailed(log)).toBe(false);
  });

  it('leave out what a request never reached, and mark errors', () => {
    const log = { ...newRequestLog('POST', '/v1/chat/completions'), status: 400, error: 'invalid_json' };
    expect(requestAttributes(log)).toEqual({ 'http.request.method': 'POST', 'http.route': '/v1/chat/completions', 'http.response.status_code': 400, 'error.type': 'invalid_json' });
    expect(requestFailed(log)).toBe(true);
    expect(requestFailed({ ...newRequestLog('GET', '/v1/*'), status: 502 })).toBe(true);
  });

  it('bound what a client chooses: the model name and the path, without its query', () => {
    const log = { ...newRequestLog('POST', '/v1/chat/completions'), model: 'm'.repeat(1000) };
    expect(String(requestAttributes(log)['gen_ai.request.model'])).toHaveLength(128);
    expect(pathOnly('/v1/files/file-1?purpose=secret-thing')).toBe('/v1/files/file-1');
    expect(pathOnly(`/v1/${'x'.repeat(500)}`)).toHaveLength(256);
    expect(truncate('short', 10)).toBe('short');
  });

  it('keep only the path of an absolute-form target: no credentials, no host', () => {
    expect(pathOnly('http://USER:pw@host/v1/models?x=1')).toBe('/v1/models');
    expect(pathOnly('//USER:pw@host/v1/models')).toBe('/v1/models');
    expect(pathOnly('http://USER:pw@[bad/v1')).toBe('');
    expect(pathOnly('*')).toBe('/*');
  });

  it('name an error by its reason or code, never its message', () => {
    expect(errorType(Object.assign(new Error('said: my password is x'), { reason: 'timeout' }))).toBe('timeout');
    expect(errorType(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBe('ECONNREFUSED');
    expect(errorType(new TypeError('x'))).toBe('TypeError');
    expect(errorType(undefined)).toBe('error');
  });
});
