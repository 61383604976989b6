import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { RecapError } from '../errors.js';
import { messageHash } from './canonical.js';
import { identify, tenantOf } from './identify.js';

const opts = { headers: ['x-conversation-id'], secret: 'a-server-secret-of-some-length' };
const msgs = [
  { role: 'system', content: 'be brief' },
  { role: 'user', content: 'hello' },
];

describe('identify', () => {
  it('scopes one conversation id per tenant and never exposes the raw id or credential', () => {
    const a = identify({ authorization: 'Bearer sk-tenant-a', 'x-conversation-id': 'conv-1' }, msgs, opts);
    const b = identify({ authorization: 'Bearer sk-tenant-b', 'x-conversation-id': 'conv-1' }, msgs, opts);
    expect(a.tenant).not.toBe(b.tenant);
    expect(a.conversation).not.toBe(b.conversation);
    expect(a.explicit).toBe(true);
    expect(JSON.stringify(a)).not.toMatch(/conv-1|sk-tenant/);
  });

  it('derives a stable id from the pinned messages and the first user message', () => {
    const h = { authorization: 'Bearer k' };
    const first = identify(h, msgs, opts);
    const later = identify(h, [...msgs, { role: 'assistant', content: 'hi' }, { role: 'user', content: 'more' }], opts);
    const other = identify(h, [msgs[0]!, { role: 'user', content: 'another topic' }], opts);
    expect(later.conversation).toBe(first.conversation);
    expect(other.conversation).not.toBe(first.conversation);
    expect(first.explicit).toBe(false);
    // Handed to counting, which takes them as the leading messages' hashes instead of hashing again.
    expect(later.leadingHashes).toEqual(msgs.map((m) => messageHash(m)));
    expect(identify({ ...h, 'x-conversation-id': 'c' }, msgs, opts).leadingHashes).toBeUndefined();
  });

  it('tries a list of headers in order, the first one present naming the conversation', () => {
    const list = { ...opts, headers: ['x-conversation-id', 'x-session-id'] };
    const h = { authorization: 'Bearer k' };
    const bySession = identify({ ...h, 'x-session-id': 'ses_1' }, msgs, list);
    expect(bySession.explicit).toBe(true);
    expect(identify({ ...h, 'x-session-id': 'ses_1', 'x-conversation-id': 'c' }, msgs, list).conversation).not.toBe(bySession.conversation);
    expect(identify({ ...h, 'x-conversation-id': '', 'x-session-id': 'ses_1' }, msgs, list).conversation).toBe(bySession.conversation);
  });

  it('accepts long ids up to 512 bytes and refuses longer ones with a 400', () => {
    const h = (id: string) => ({ authorization: 'Bearer k', 'x-conversation-id': id });
    expect(identify(h('x'.repeat(512)), msgs, opts).explicit).toBe(true);
    expect(identify(h('x'.repeat(511) + 'y'), msgs, opts).conversation).not.toBe(identify(h('x'.repeat(512)), msgs, opts).conversation);
    try {
      identify(h('x'.repeat(513)), msgs, opts);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(RecapError);
      expect((err as RecapError).status).toBe(400);
    }
  });
});

describe('tenantOf', () => {
  it('keeps no credential in memory once it has worked out the tenant', () => {
    // The credential exists only as a string inside the call; the test holds its bytes.
    const secretPart = randomBytes(24);
    const tenant = tenantOf({ authorization: `Bearer sk-${secretPart.toString('hex')}` }, opts.secret);
    expect(tenant).toBe(tenantOf({ authorization: `Bearer sk-${secretPart.toString('hex')}` }, opts.secret));
    // A heap snapshot collects garbage first, so any copy it still holds is kept by someone.
    const file = join(mkdtempSync(join(tmpdir(), 'recap-heap-')), 'after.heapsnapshot');
    try {
      writeHeapSnapshot(file);
      expect(readFileSync(file, 'latin1').includes(secretPart.toString('hex'))).toBe(false);
    } finally {
      rmSync(dirname(file), { recursive: true, force: true });
    }
  });
});
