import { describe, expect, it } from 'vitest';
import { parseConfig } from './config.js';
import { problems } from './problems.case.js';

// The `clients` and `server.anonymous` keys of issue 19 (config.test.ts covers the rest).

const base = `
upstreams:
  openai: { base_url: https://api.openai.com/v1, api_key: sk-server }
`;
const KEY_A = 'ck-a-0123456789abcdef0123456789abcdef';
const KEY_B = 'ck-b-0123456789abcdef0123456789abcdef';

describe('config: clients', () => {
  it('reads clients with their keys from the environment, models and allowances', () => {
    const c = parseConfig(
      `${base}clients:\n  - { name: web, key: '\${WEB_KEY}' }\n  - { name: batch, key: ${KEY_B}, models: [gpt-4o-mini], tenant_tokens_per_window: 5000 }\n`,
      'recap.yaml',
      { WEB_KEY: KEY_A },
    );
    expect(c.clients).toEqual([
      { name: 'web', key: KEY_A },
      { name: 'batch', key: KEY_B, models: ['gpt-4o-mini'], tenant_tokens_per_window: 5000 },
    ]);
    expect(c.server.anonymous).toBe('off');
    expect(parseConfig(base, 'recap.yaml', {}).clients).toBeUndefined();
  });

  it('refuses short keys, keys with spaces, duplicate names and keys, never echoing a key', () => {
    const lines = problems(`${base}clients:
  - { name: web, key: short-key }
  - { name: web, key: ${KEY_A} }
  - { name: batch, key: ${KEY_A} }
  - { name: 'has space', key: 'ck with spaces 0123456789abcdef0123' }
`);
    expect(lines).toEqual(
      expect.arrayContaining([
        'recap.yaml: clients.0.key: must be at least 32 characters (e.g. `openssl rand -hex 32`)',
        'recap.yaml: clients.1.name: duplicate client name "web"',
        'recap.yaml: clients.2.key: the same key is given to an earlier client',
        expect.stringMatching(/^recap\.yaml: clients\.3\.name: must be 1 to 64 letters/),
        expect.stringMatching(/^recap\.yaml: clients\.3\.key: must be printable ASCII without spaces/),
      ]),
    );
    expect(lines.join('\n')).not.toContain(KEY_A);
    expect(problems(`${base}clients:\n  - { name: web, key: '\${MISSING}' }\n`)).toEqual(
      expect.arrayContaining(["recap.yaml: clients.0.key: environment variable MISSING is not set (in '${MISSING}')"]),
    );
  });

  it('takes server.anonymous off or shared, and refuses shared together with clients', () => {
    expect(parseConfig(`${base}server: { anonymous: shared }`, 'recap.yaml', {}).server.anonymous).toBe('shared');
    expect(problems(`${base}server: { anonymous: everyone }`)[0]).toMatch(/^recap\.yaml: server\.anonymous: /);
    expect(problems(`${base}server: { anonymous: shared }\nclients: [{ name: web, key: ${KEY_A} }]`)).toEqual([
      'recap.yaml: server.anonymous: anonymous callers are refused when clients are configured: remove server.anonymous or clients',
    ]);
  });
});
