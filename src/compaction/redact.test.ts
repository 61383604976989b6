import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redact, redactSliced, redactStepwise } from './redact.js';

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
    ['glpat-AbCdEf1234567890xyzw', 'gitlab_token'],
    ['hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567', 'huggingface_token'],
    ['npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789', 'npm_token'],
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
    expect(redact('{"password": "correct horse battery", "user": "bob"}')).toBe('{"password": "[REDACTED:secret]", "user": "bob"}');
  });

  it('removes a PGP private key block, and a cut-short key whose newlines are JSON-escaped', () => {
    expect(redact('-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF0abc\n-----END PGP PRIVATE KEY BLOCK-----\nok')).toBe('[REDACTED:private_key]\nok');
    expect(redact('{"key": "-----BEGIN RSA PRIVATE KEY-----\\nMIIEpAIBAAKCAQEA1234\\nabcd", "n": 1}')).toBe('{"key": "[REDACTED:private_key]", "n": 1}');
  });

  it('removes the credentials of any Authorization scheme', () => {
    expect(redact('Authorization: Basic dXNlcjpwYXNzd29yZA==')).toBe('Authorization: Basic [REDACTED:authorization]');
    expect(redact('-H "Authorization: Token 9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b"')).toBe('-H "Authorization: Token [REDACTED:authorization]"');
    expect(redact('proxy-authorization: Basic YWxhZGRpbjpvcGVuc2VzYW1l')).toBe('proxy-authorization: Basic [REDACTED:authorization]');
  });

  it('removes the password of a URL, keeping the user and host', () => {
    expect(redact('DATABASE_URL=postgres://app:S3cr3t-Pa55@db.internal:5432/prod')).toBe('DATABASE_URL=postgres://app:[REDACTED:url_credentials]@db.internal:5432/prod');
    expect(redact('git clone https://oauth2:glpat-AbCdEf1234567890xyzw@gitlab.com/x.git')).toBe('git clone https://oauth2:[REDACTED:gitlab_token]@gitlab.com/x.git');
  });

  it('removes a whole password that contains & or follows "password is"', () => {
    expect(redact('password: Tr0ub4dor&3-canary!')).toBe('password: [REDACTED:secret]');
    expect(redact('GET /x?token=abcdefgh1234&page=2')).toBe('GET /x?token=[REDACTED:secret]&page=2');
    expect(redact('my password is hunter2hunter2 ok')).toBe('my password is [REDACTED:secret] ok');
    expect(redact('the passphrase was "Tr0ub4dor&3"')).toBe('the passphrase was "[REDACTED:secret]"');
  });

  it('is idempotent', () => {
    const once = redact(
      'token=abcdefgh12 Bearer abc.def-123_xyz sk-proj-AbC123def456GHI789jkl012 password: "x y z w v u" Authorization: Basic dXNlcjpwYXNz1 pg://a:b1234567@h password is abc12345',
    );
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
    'the password is required',
    'the password is incorrect, try again',
    'Authorization: required for every request',
    'the Authorization header carries a Basic credential',
    'see http://localhost:8080/docs and https://example.com/a:b@c',
    'ssh user@host:22',
  ])('%s', (text) => {
    expect(redact(text)).toBe(text);
  });
});

describe('redactSliced', () => {
  // Fragments that make secrets, labels and key blocks meet line ends in every way.
  const fragment = fc.constantFrom(
    '\n',
    '\r\n',
    '\r',
    ' ',
    '\t',
    ':',
    '=',
    '"',
    "'",
    '.',
    'x',
    'word',
    'is',
    'was',
    'the',
    'Bearer',
    'bearer',
    'Authorization',
    'Basic',
    'Token',
    'password',
    'api_key',
    'DB_PASSWORD',
    'my-Api-Key',
    'x_',
    '-',
    'a1',
    'xtoken',
    'passwd',
    'ACCESS_KEY',
    'token',
    'secret',
    'hunter2hunter2',
    'abcdef0123456789abcdef',
    'sk-proj-abcdefghij0123456789KLMN',
    'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
    'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl',
    '-----BEGIN PRIVATE KEY-----',
    '-----END PRIVATE KEY-----',
    '-----BEGIN RSA PRIVATE KEY-----',
    'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC',
    'postgres://app:',
    's3cr3tpass',
    '@db',
  );

  it('redacts exactly as redact() does, wherever the pieces end', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fragment, { maxLength: 120 }), fc.integer({ min: 1, max: 40 }), async (parts, pieceChars) => {
        const text = parts.join('');
        expect(await redactSliced(text, () => undefined, pieceChars)).toBe(redact(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('redacts match by match exactly as redact() does', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fragment, { maxLength: 120 }), async (parts) => {
        const text = parts.join('');
        expect(await redactStepwise(text, () => undefined)).toBe(redact(text));
      }),
      { numRuns: 3000 },
    );
  });

  /** redactSliced(text) and how often it asked to pause. */
  async function slicedWithPauses(text: string): Promise<{ out: string; pauses: number }> {
    let pauses = 0;
    const out = await redactSliced(text, () => {
      pauses++;
      return undefined;
    });
    return { out, pauses };
  }

  it('pauses within a long text that has no line end to cut at (a line of megabytes), with the same result', async () => {
    const row = (i: number) => `{"id":${i},"path":"/v1/items/${i}","token":"${i % 500 === 0 ? 'sk-proj-abcdefghij0123456789KLMN' : 'none'}"}`;
    const text = `[${Array.from({ length: 20_000 }, (_, i) => row(i)).join(',')}]`;
    const { out, pauses } = await slicedWithPauses(text);
    expect(out).toBe(redact(text));
    expect(out).toContain('[REDACTED:openai_key]');
    expect(pauses).toBeGreaterThan(3);
  });

  it.each([
    ['LF', '\n'],
    ['CRLF', '\r\n'],
  ])('pauses between the pieces of a long text with %s line ends', async (_name, eol) => {
    const text = `${`log line 1234 ok${eol}`.repeat(20_000)}key sk-proj-abcdefghij0123456789KLMN${eol}`;
    const { out, pauses } = await slicedWithPauses(text);
    expect(out).toBe(redact(text));
    expect(pauses).toBeGreaterThan(3);
  });
});
