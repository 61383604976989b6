import { describe, expect, it } from 'vitest';
import { knownKeysAt, nearestKey } from './known-keys.js';
import { configSchema } from './schema.js';

describe('knownKeysAt', () => {
  it('finds the keys of an object through defaults, lists and records', () => {
    expect(knownKeysAt(configSchema, ['server'])).toContain('conversation_header');
    expect(knownKeysAt(configSchema, ['models', 0, 'compaction'])).toContain('strategy');
    expect(knownKeysAt(configSchema, ['upstreams', 'openai'])).toContain('base_url');
    expect(knownKeysAt(configSchema, [])).toContain('models');
    expect(knownKeysAt(configSchema, ['server', 'port'])).toEqual([]);
  });
});

describe('nearestKey', () => {
  it('names the key a typo was meant to be, and none for a key that is nothing like one', () => {
    const server = knownKeysAt(configSchema, ['server']);
    expect(nearestKey('prot', server)).toBe('port');
    expect(nearestKey('anonymus', server)).toBe('anonymous');
    expect(nearestKey('admin-token', server)).toBe('admin_token');
    expect(nearestKey('colour', knownKeysAt(configSchema, ['upstreams', 'x']))).toBeUndefined();
  });
});
