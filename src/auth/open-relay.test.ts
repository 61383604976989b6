import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config/config.js';
import { openRelayWarning } from './open-relay.js';

const config = (upstream: string, extra = '') => parseConfig(`upstreams:\n  main: ${upstream}\n${extra}`, 'test.yaml', {});
const KEYED = `{ base_url: 'http://127.0.0.1:1/v1', api_key: sk-server }`;

describe('openRelayWarning', () => {
  it('warns when an upstream has its own key and nobody is checked at the door', () => {
    const warning = openRelayWarning(config(KEYED));
    expect(warning).toMatch(/^open relay: upstream "main" has its own api_key and no clients are configured/);
    expect(warning).not.toContain('sk-server');
  });

  it('stays silent with clients, without upstream keys, or listening on loopback only', () => {
    expect(openRelayWarning(config(KEYED, 'clients: [{ name: web, key: ck-0123456789abcdef0123456789abcdef }]'))).toBeUndefined();
    expect(openRelayWarning(config(`{ base_url: 'http://127.0.0.1:1/v1' }`))).toBeUndefined();
    for (const host of ['127.0.0.1', '::1', 'localhost']) expect(openRelayWarning(config(KEYED, `server: { host: '${host}' }`))).toBeUndefined();
  });
});
