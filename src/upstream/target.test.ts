import { describe, expect, it } from 'vitest';
import { queryOf, upstreamTarget } from './target.js';

describe('upstreamTarget', () => {
  it.each([
    ['/v1/models', '/models'],
    ['/v1/files/file-abc/content?purpose=x&limit=2', '/files/file-abc/content?purpose=x&limit=2'],
    ['/v1', ''],
    ['/v1?x=1', '?x=1'],
    ['/v1/files/a%2Fb', '/files/a%2Fb'],
  ])('keeps the path below /v1 and the query: %s → %s', (target, expected) => {
    expect(upstreamTarget(target)).toBe(expected);
  });

  it.each([
    ['http://attacker.example:8080/v1/models', '/models'],
    ['https://attacker.example/v1/models?q=1', '/models?q=1'],
    ['/v1//attacker.example/x', '/attacker.example/x'],
    ['/v1/../../admin', '/admin'],
    ['/v1/%2e%2e/%2E%2E/admin', '/admin'],
  ])('never names another host nor leaves the base path: %s → %s', (target, expected) => {
    const path = upstreamTarget(target);
    expect(path).toBe(expected);
    expect(new URL(`/base${path}`, 'http://upstream.test').href.startsWith('http://upstream.test/base/')).toBe(true);
  });
});

describe('queryOf', () => {
  it.each([
    ['/v1/messages?beta=true', '?beta=true'],
    ['/v1/chat/completions?api-version=2024-10-21&x=%20y', '?api-version=2024-10-21&x=%20y'],
    ['/v1/messages', ''],
    ['http://attacker.example/v1/messages?beta=true', '?beta=true'],
  ])('the query of %s is %s', (target, expected) => {
    expect(queryOf(target)).toBe(expected);
  });
});
