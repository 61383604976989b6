import { describe, expect, it } from 'vitest';
import { identifiersIn, mentions } from './identifiers.js';
import { redact } from './redact.js';

describe('identifiersIn', () => {
  it.each([
    ['ticket-style ids', 'Escalated as SUP-4411 and CVE-2024-3094, see ORD-2024-0042.', ['SUP-4411', 'CVE-2024-3094', 'ORD-2024-0042']],
    ['prefixed ids with a digit', 'customer cus_9f8a7b, user_42 in us-east-1 on gpt-4o', ['cus_9f8a7b', 'user_42', 'us-east-1', 'gpt-4o']],
    ['URLs of any scheme', 'Open https://status.example.com/incidents/42, or s3://logs/2024/app.gz.', ['https://status.example.com/incidents/42', 's3://logs/2024/app.gz']],
    ['URLs with balanced brackets', 'See (https://en.wikipedia.org/wiki/Foo_(bar)).', ['https://en.wikipedia.org/wiki/Foo_(bar)']],
    [
      'absolute, home and relative paths',
      'Edit /etc/billing/rates.yaml, ~/notes/a.md, ./run.sh and src/billing/config.ts.',
      ['/etc/billing/rates.yaml', '~/notes/a.md', './run.sh', 'src/billing/config.ts'],
    ],
    ['Windows paths', 'It is in C:\\Users\\ops\\app.log now', ['C:\\Users\\ops\\app.log']],
    ['file and host names', 'Check config.yaml on api.example.com', ['config.yaml', 'api.example.com']],
    ['hashes and UUIDs', 'commit 7f3a9c21, request 123e4567-e89b-12d3-a456-426614174000', ['7f3a9c21', '123e4567-e89b-12d3-a456-426614174000']],
    ['quoted code names', 'Set `retry_budget` and `npm run build` but not `a b c d e f`', ['retry_budget', 'npm run build']],
    [
      'numbers with units and amounts',
      'It took 1.5 GB and 30s at 99.9% uptime, a refund of $4,500 or 250 EUR, 3 replicas.',
      ['1.5 GB', '30s', '99.9%', '$4,500', '250 EUR', '3 replicas'],
    ],
    ['error codes', 'ECONNREFUSED, ERR_INVALID_ARG, TS2345, 0x80070005, HTTP 503 and error code: 1045', ['ECONNREFUSED', 'ERR_INVALID_ARG', 'TS2345', '0x80070005', '503', '1045']],
    [
      'versions, addresses, dates, emails',
      'lodash v4.17.21 on 10.0.0.12:5432 since 2024-05-01, mail ops@example.com',
      ['v4.17.21', '10.0.0.12:5432', '2024-05-01', 'ops@example.com'],
    ],
    ['issue references and long numbers', 'Port 8443, invoice #1234, order 884213', ['8443', '#1234', '884213']],
    ['codes of capitals and digits without a separator', 'Your confirmation code is K7QX2MPA; booking reference 9ZK4QW, voucher X9Y8Z7W6.', ['K7QX2MPA', '9ZK4QW', 'X9Y8Z7W6']],
  ])('finds %s', (_kind, text, expected) => {
    expect(identifiersIn(text)).toEqual(expected);
  });

  it('leaves prose alone', () => {
    const prose = 'We can use and/or, e.g. a client/server set-up, a follow-up call and a well-known fix; it takes 3 steps at 5 pm. Redis is fine.';
    expect(identifiersIn(prose)).toEqual([]);
  });

  it('takes no capitalized or shouted word, acronym or plain number for a code', () => {
    const prose =
      'The Quick Brown Fox told NASA, the USA and the EU: IMPORTANT, READ THIS NOW. Ship the PDF and JSON over HTTPS by Monday, OK? A 4K screen, an MP3, a B2B deal, COVID-era H2O.';
    expect(identifiersIn(prose)).toEqual([]);
  });

  it('lists each identifier once, in order of first appearance', () => {
    expect(identifiersIn('SUP-1 then /a/b.txt then SUP-1 again and /a/b.txt.')).toEqual(['SUP-1', '/a/b.txt']);
  });

  it('never returns a redaction marker or any part of a redacted secret', () => {
    const secrets = 'key sk-proj-abc123def456ghi789jkl012 and AKIAIOSFODNN7EXAMPLE, postgres://app:hunter2hunter2@db.internal:5432/app';
    const found = identifiersIn(redact(secrets));
    expect(found).toEqual(['postgres://app:[REDACTED:url_credentials]@db.internal:5432/app']);
    for (const part of ['sk-proj', 'abc123', 'AKIA', 'hunter2']) expect(found.join(' ')).not.toContain(part);
  });
});

describe('mentions', () => {
  it('finds an identifier as a whole token only', () => {
    expect(mentions('see ORD-4411.', 'ORD-4411')).toBe(true);
    expect(mentions('(ORD-4411)', 'ORD-4411')).toBe(true);
    expect(mentions('ORD-44110', 'ORD-4411')).toBe(false);
    expect(mentions('ORD-4411', 'ORD-44')).toBe(false);
    expect(mentions('ORD-4411', '4411')).toBe(false);
    expect(mentions('files /a/b.json and /a/b.json.bak', '/a/b.json')).toBe(true);
    expect(mentions('we saw 503 twice', '503')).toBe(true);
    expect(mentions('nothing here', '503')).toBe(false);
  });
});
