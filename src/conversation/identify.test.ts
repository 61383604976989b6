import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import { describe, expect, it } from 'vitest';
import type { Caller } from '../auth/caller.js';
import { credentialOf } from '../auth/caller.js';
import { RecapError } from '../errors.js';
import { clientTenant, conversationIdText, identifyBy, leadingHashes, namedConversation, tenantOf, tenantOfCaller } from './identify.js';

const opts = { headers: ['x-conversation-id'], secret: 'a-server-secret-of-some-length' };
// The caller as the door decides it without clients: its credential, or anonymous.
const callerOf = (headers: Record<string, string>, shared = false): Caller => {
  const credential = credentialOf(headers);
  return credential ? { kind: 'credential', credential } : { kind: 'anonymous', shared };
};
// The chat format's identity: the header's id, else the leading messages.
const identifyCaller = (caller: Caller, headers: Record<string, string>, messages: typeof msgs, o = opts) =>
  identifyBy(caller, namedConversation(headers, o.headers), () => leadingHashes(messages), o);
const identify = (headers: Record<string, string>, messages: typeof msgs, o = opts) => identifyCaller(callerOf(headers), headers, messages, o);
const client = (name: string): Caller => ({ kind: 'client', client: { name, restricted: false, mayUse: () => true } });
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
    // The raw id is kept only as `id`, for the owner's own listing; the keys that scope records are hashes.
    expect(a.id).toBe('conv-1');
    expect(JSON.stringify({ ...a, id: undefined })).not.toMatch(/conv-1|sk-tenant/);
  });

  it('derives a stable id from the pinned messages and the first user message', () => {
    const h = { authorization: 'Bearer k' };
    const first = identify(h, msgs, opts);
    const later = identify(h, [...msgs, { role: 'assistant', content: 'hi' }, { role: 'user', content: 'more' }], opts);
    const other = identify(h, [msgs[0]!, { role: 'user', content: 'another topic' }], opts);
    expect(later.conversation).toBe(first.conversation);
    expect(other.conversation).not.toBe(first.conversation);
    expect(first.explicit).toBe(false);
  });

  it('hashes a conversation asked for before under another secret afresh, by header and by opening', () => {
    const other = { ...opts, secret: 'another-server-secret' };
    const headers: Record<string, string>[] = [{ authorization: 'Bearer k', 'x-conversation-id': 'conv-s' }, { authorization: 'Bearer k' }];
    for (const h of headers) {
      const first = identify(h, msgs, opts).conversation;
      const underOther = identify(h, msgs, other).conversation;
      expect(underOther).not.toBe(first);
      expect(identify(h, msgs, opts).conversation).toBe(first);
      expect(identify(h, msgs, other).conversation).toBe(underOther);
    }
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

describe('identify: callers and their records', () => {
  it('makes a configured client its own tenant, apart from any credential tenant', () => {
    const h = { 'x-conversation-id': 'conv-1' };
    const web = identifyCaller(client('web'), h, msgs, opts);
    expect(web.tenant).toBe(identifyCaller(client('web'), h, msgs, opts).tenant);
    expect(web.tenant).not.toBe(identifyCaller(client('batch'), h, msgs, opts).tenant);
    // A credential that spells a client's name is not that client.
    expect(web.tenant).not.toBe(identify({ authorization: 'web', ...h }, msgs).tenant);
    expect(web.keepsRecords).toBe(true);
  });

  it('keeps no records for a caller without a credential, unless anonymous callers are shared', () => {
    expect(identify({ authorization: 'Bearer k' }, msgs).keepsRecords).toBe(true);
    expect(identify({}, msgs).keepsRecords).toBe(false);
    const shared = identifyCaller(callerOf({}, true), {}, msgs, opts);
    expect(shared.keepsRecords).toBe(true);
    // Shared anonymous callers are one tenant, the one an empty credential always had.
    expect(shared.tenant).toBe(tenantOf({}, opts.secret));
  });

  it('reads the conversation header bytes as UTF-8, and bytes that are not UTF-8 as Latin-1', () => {
    const id = 'ticket-été-✓-日本';
    // Node hands header values over as Latin-1: one char per byte of what the client sent.
    const asNodeGivesIt = (bytes: Buffer) => bytes.toString('latin1');
    expect(conversationIdText(asNodeGivesIt(Buffer.from(id, 'utf8')))).toBe(id);
    // fetch sends `é` as the one byte E9: not UTF-8, so Latin-1, and the same text as its UTF-8.
    expect(conversationIdText(asNodeGivesIt(Buffer.from('été', 'latin1')))).toBe('été');
    const header = (text: string, enc: BufferEncoding) => ({ authorization: 'Bearer k', 'x-conversation-id': asNodeGivesIt(Buffer.from(text, enc)) });
    expect(identify(header('été', 'utf8'), msgs).conversation).toBe(identify(header('été', 'latin1'), msgs).conversation);
    expect(identify(header(id, 'utf8'), msgs).conversation).not.toBe(identify(header('ticket-ete-?-??', 'utf8'), msgs).conversation);
    // 512 is a limit in bytes, not in characters.
    expect(identify(header('é'.repeat(256), 'utf8'), msgs).explicit).toBe(true);
    expect(() => identify(header('é'.repeat(257), 'utf8'), msgs)).toThrow(RecapError);
  });
});

describe('tenantOfCaller', () => {
  it('gives a client the same tenant on every request, and another under another secret', () => {
    const entry = { name: 'team-a', restricted: false, mayUse: () => true };
    const first = tenantOfCaller({ kind: 'client', client: entry }, opts.secret);
    expect(first).toBe(clientTenant('team-a', opts.secret));
    expect(tenantOfCaller({ kind: 'client', client: entry }, opts.secret)).toBe(first);
    expect(tenantOfCaller({ kind: 'client', client: entry }, 'another-secret')).toBe(clientTenant('team-a', 'another-secret'));
    expect(tenantOfCaller({ kind: 'client', client: entry }, opts.secret)).toBe(first);
  });

  it('gives a credential and no credential their own tenants, asked once or twice per request', () => {
    const a = callerOf({ authorization: 'Bearer sk-a' });
    const anonymous = callerOf({});
    expect(tenantOfCaller(a, opts.secret)).toBe(tenantOf({ authorization: 'Bearer sk-a' }, opts.secret));
    expect(tenantOfCaller(a, opts.secret)).toBe(tenantOfCaller(callerOf({ authorization: 'Bearer sk-a' }), opts.secret));
    expect(tenantOfCaller(a, 'another-secret')).toBe(tenantOf({ authorization: 'Bearer sk-a' }, 'another-secret'));
    expect(tenantOfCaller(anonymous, opts.secret)).toBe(tenantOf({}, opts.secret));
    expect(tenantOfCaller(anonymous, opts.secret)).not.toBe(tenantOfCaller(a, opts.secret));
  });
});

describe('tenantOf', () => {
  it('keeps no credential in memory once it has worked out the tenant', () => {
    // The credential exists only as a string inside the call; the test holds its bytes.
    const secretPart = randomBytes(24);
    const tenant = tenantOf({ authorization: `Bearer sk-${secretPart.toString('hex')}` }, opts.secret);
    expect(tenant).toBe(tenantOf({ authorization: `Bearer sk-${secretPart.toString('hex')}` }, opts.secret));
    // Nor once the request's caller, which holds its tenant for the rest of the request, is gone.
    expect(tenantOfCaller(callerOf({ authorization: `Bearer sk-${secretPart.toString('hex')}` }), opts.secret)).toBe(tenant);
    // A heap snapshot collects garbage first, so any copy it still holds is kept by someone.
    const file = join(mkdtempSync(join(tmpdir(), 'recap-heap-')), 'after.heapsnapshot');
    try {
      writeHeapSnapshot(file);
      expect(readFileSync(file, 'latin1').includes(secretPart.toString('hex'))).toBe(false);
    } finally {
      rmSync(dirname(file), { recursive: true, force: true });
    }
    // A snapshot holds the tokenizers' rank tables: over ten seconds to write on a loaded machine.
  }, 90_000);
});
