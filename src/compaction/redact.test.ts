import { describe, expect, it } from 'vitest';
import { redact } from './redact.js';

describe('redact: true positives', () => {
  it.each([
    ['sk-proj-AbC123def456GHI789jkl012mno345pqr', 'openai_key'],
    ['sk-abc123def456ghi789jkl012mno345pqr678stu901vw', 'openai_key'],
    ['sk-svcacct-AbC123def456GHI789jkl012', 'openai_key'],
    ['sk-ant-api03-AbC123def456GHI789jkl012mno345', 'anthropic_key'],
    ['sk_live_abcdefghijklmnop1234', 'stripe_key'],
    ['ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'github_token'],
    ['github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz', 'github_token'],
    ['AKIAIOSFODNN7EXAMPLE', 'aws_access_key'],
    ['AIzaSyA1234567890abcdefghijklmnopqrstuv', 'google_api_key'],
    ['xoxb-123456789012-abcdefghij', 'slack_token'],
    ['xoxp-123456789012-abcdefghij', 'slack_token'],
    ['eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk', 'jwt'],
  ])('%s → %s', (secret, kind) => {
    expect(redact(`before ${secret} after`)).toBe(`before [REDACTED:${kind}] after`);
  });

  it('keeps the Bearer label and removes the token', () => {
    expect(redact('Authorization: Bearer abc.def-123_xyz')).toBe('Authorization: Bearer [REDACTED:bearer]');
    expect(redact('Authorization: Bearer sk-abc123def456ghi789jkl012')).toBe('Authorization: Bearer [REDACTED:openai_key]');
  });

  it('removes a whole PEM private key block, and a cut-short one', () => {
    const pem = '-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA1234\nabcd==\n-----END RSA PRIVATE KEY-----';
    expect(redact(`key:\n${pem}\ndone`)).toBe('key:\n[REDACTED:private_key]\ndone');
    expect(redact('-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg')).toBe('[REDACTED:private_key]');
  });

  it('keeps the key of a key-value pair and removes a credential-looking value', () => {
    expect(redact('DB_PASSWORD=correcthorse')).toBe('DB_PASSWORD=[REDACTED:secret]');
    expect(redact('passwd: s3cr3t-pass')).toBe('passwd: [REDACTED:secret]');
    expect(redact('api_key: abcd1234efgh')).toBe('api_key: [REDACTED:secret]');
    expect(redact('client_secret=abcdefgh12')).toBe('client_secret=[REDACTED:secret]');
    expect(redact('GET /x?access_token=abcdefgh1234&page=2')).toBe('GET /x?access_token=[REDACTED:secret]&page=2');
    expect(redact('{"password": "correct horse battery", "user": "bob"}')).toBe(
      '{"password": "[REDACTED:secret]", "user": "bob"}',
    );
  });

  it('is idempotent', () => {
    const once = redact('token=abcdefgh12 Bearer abc.def-123_xyz sk-proj-AbC123def456GHI789jkl012 password: "x y z w v u"');
    expect(redact(once)).toBe(once);
  });
});

describe('redact: near-misses stay', () => {
  it.each([
    'the token budget is 4000',
    'the password field is required',
    'use sk-learn for classic ML',
    'sk-learn-is-a-great-library',
    'skills and task-1234567890abcdefghijk',
    'max_tokens=100000000',
    'max_tokens: 4096',
    'tokens: 12345678',
    'Bearer authentication is used here',
    'a password: short',
    'AKIA is the prefix of AWS access keys',
    'eyJ is how base64 JSON starts',
  ])('%s', (text) => {
    expect(redact(text)).toBe(text);
  });
});
