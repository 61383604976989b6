import { describe, expect, it } from 'vitest';
import { parseRedisUrl } from './redis-url.js';

describe('parseRedisUrl', () => {
  it('passes redis:// and rediss:// to ioredis as one server', () => {
    expect(parseRedisUrl('redis://user:pw@host:6380/2')).toEqual({ mode: 'standalone', url: 'redis://user:pw@host:6380/2' });
    expect(parseRedisUrl('rediss://host')).toEqual({ mode: 'standalone', url: 'rediss://host' });
  });

  it('reads redis+cluster:// seed nodes, defaulting the port', () => {
    expect(parseRedisUrl('redis+cluster://10.0.0.1:7000,10.0.0.2,[::1]:7002/')).toEqual({
      mode: 'cluster',
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 6379 },
        { host: '::1', port: 7002 },
      ],
      tls: false,
    });
  });

  it('reads credentials and TLS of a cluster URL', () => {
    expect(parseRedisUrl('rediss+cluster://default:p%40ss@a:1,b:2')).toMatchObject({ tls: true, username: 'default', password: 'p@ss' });
    expect(parseRedisUrl('redis+cluster://:secret@a:1')).toMatchObject({ password: 'secret' });
    expect(parseRedisUrl('redis+cluster://:secret@a:1')).not.toHaveProperty('username');
  });

  it('refuses other forms without echoing the URL (it may hold a password)', () => {
    expect(() => parseRedisUrl('http://user:hunter2@a:1')).toThrow(/^store\.url: expected/);
    expect(() => parseRedisUrl('http://user:hunter2@a:1')).not.toThrow(/hunter2/);
    expect(() => parseRedisUrl('redis+cluster://a:99999')).toThrow(/not host\[:port\]/);
    expect(() => parseRedisUrl('redis+cluster://a:1,,b:2')).toThrow(/not host\[:port\]/);
  });
});
