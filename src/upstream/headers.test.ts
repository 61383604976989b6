import { describe, expect, it } from 'vitest';
import { clientResponseHeaders, upstreamRequestHeaders } from './headers.js';

const CLIENT = {
  host: 'recap.local',
  'content-length': '123',
  expect: '100-continue',
  connection: 'keep-alive, x-hop',
  'keep-alive': 'timeout=5',
  'x-hop': 'nominated by connection',
  'transfer-encoding': 'chunked',
  'accept-encoding': 'gzip',
  authorization: 'Bearer sk-client',
  'x-api-key': 'sk-client-2',
  'x-conversation-id': 'conv-1',
  'x-recap-admin-token': 'secret',
  'user-agent': 'sdk/1.0',
  'openai-beta': 'assistants=v2',
};

describe('upstreamRequestHeaders', () => {
  it('forwards the end-to-end headers only: no hop-by-hop or nominated ones, none of recap’s, no host, length or expect', () => {
    const out = upstreamRequestHeaders(CLIENT, {}, { chat: false });
    expect(out).toEqual({
      'accept-encoding': 'gzip',
      authorization: 'Bearer sk-client',
      'x-api-key': 'sk-client-2',
      'x-conversation-id': 'conv-1',
      'user-agent': 'sdk/1.0',
      'openai-beta': 'assistants=v2',
    });
  });

  it('asks for identity encoding on chat routes (by not forwarding accept-encoding) and strips the route’s headers', () => {
    const out = upstreamRequestHeaders(CLIENT, {}, { chat: true, stripHeaders: ['x-conversation-id'] });
    expect(out['accept-encoding']).toBeUndefined();
    expect(out['x-conversation-id']).toBeUndefined();
    expect(out['user-agent']).toBe('sdk/1.0');
  });

  it('replaces every client credential with the upstream’s key, in the upstream API’s style, and only where it has one', () => {
    const strip = ['x-conversation-id'];
    const openai = upstreamRequestHeaders(CLIENT, { apiKey: 'sk-up', api: 'openai' }, { chat: true, stripHeaders: strip });
    expect(openai.authorization).toBe('Bearer sk-up');
    expect(openai['x-api-key']).toBeUndefined();
    const anthropic = upstreamRequestHeaders(CLIENT, { apiKey: 'sk-ant', api: 'anthropic' }, { chat: true, stripHeaders: strip });
    expect(anthropic['x-api-key']).toBe('sk-ant');
    expect(anthropic.authorization).toBeUndefined();
    // The same route without a key of its own passes the client's on, whatever was asked before.
    const own = upstreamRequestHeaders(CLIENT, {}, { chat: true, stripHeaders: strip });
    expect(own.authorization).toBe('Bearer sk-client');
    expect(own['x-api-key']).toBe('sk-client-2');
    expect(upstreamRequestHeaders(CLIENT, {}, { chat: false, stripHeaders: strip })['accept-encoding']).toBe('gzip');
  });
});

describe('clientResponseHeaders', () => {
  it('passes the upstream’s headers on without hop-by-hop, nominated or x-recap-* ones', () => {
    const out = clientResponseHeaders({
      'content-type': 'application/json',
      'content-length': '2',
      connection: 'close, x-up-hop',
      'x-up-hop': '1',
      'x-recap-action': 'forged',
      'x-request-id': 'req-1',
    });
    expect(out).toEqual({ 'content-type': 'application/json', 'content-length': '2', 'x-request-id': 'req-1' });
  });
});
