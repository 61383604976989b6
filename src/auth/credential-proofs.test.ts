import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config/config.js';
import { MemoryStore } from '../store/memory-store.js';
import { StoreUnavailableError } from '../store/store.js';
import { type AcceptedStore, CredentialProofs } from './credential-proofs.js';

const SECRET = 'a-server-secret-of-some-length';

function config(upstreams: string, extra = '') {
  return parseConfig(
    `
upstreams:
${upstreams}
models:
  - match: paid-summaries
    upstream: main
    context_window: 8000
    max_output_tokens: 500
    compaction: { strategy: summarize, summarizer: { model: s, upstream: paid } }
  - match: own-summaries
    upstream: main
    context_window: 8000
    max_output_tokens: 500
    compaction: { strategy: summarize, summarizer: { model: s } }
  - match: template
    upstream: main
    context_window: 8000
    max_output_tokens: 500
    compaction: { strategy: template }
${extra}`,
    'test.yaml',
    {},
  );
}
const BOTH = `  main: { base_url: 'http://127.0.0.1:1/v1' }\n  paid: { base_url: 'http://127.0.0.1:1/v1', api_key: sk-recap }`;
const model = (c: ReturnType<typeof config>, match: string) => c.models.find((m) => m.match === match)!;
const settle = () => new Promise((r) => setImmediate(r));
const memory = () => new MemoryStore({ ttlMs: 60_000, maxConversations: 100 });

describe('CredentialProofs', () => {
  it('asks for a proof only where recap pays a summary for a caller only the upstream checks', () => {
    const c = config(BOTH);
    const proofs = new CredentialProofs({ config: c, secret: SECRET, store: memory() });
    expect(proofs.needsProof(model(c, 'paid-summaries'))).toBe(true);
    // The caller's own credential pays its summaries; no summarizer at all.
    expect(proofs.needsProof(model(c, 'own-summaries'))).toBe(false);
    expect(proofs.needsProof(model(c, 'template'))).toBe(false);
    // The model's upstream has recap's key too: every caller is accepted, a proof shows nothing.
    const keyed = config(`  main: { base_url: 'http://127.0.0.1:1/v1', api_key: sk-main }\n  paid: { base_url: 'http://127.0.0.1:1/v1', api_key: sk-recap }`);
    expect(new CredentialProofs({ config: keyed, secret: SECRET, store: memory() }).needsProof(model(keyed, 'paid-summaries'))).toBe(false);
    // recap checks its clients itself.
    const clients = config(BOTH, 'clients: [{ name: web, key: ck-0123456789abcdef0123456789abcdef }]');
    expect(new CredentialProofs({ config: clients, secret: SECRET, store: memory() }).needsProof(model(clients, 'paid-summaries'))).toBe(false);
  });

  it('pays for a tenant once the upstream accepted it, on every process sharing the store', async () => {
    const c = config(BOTH);
    const store = memory();
    const one = new CredentialProofs({ config: c, secret: SECRET, store });
    const two = new CredentialProofs({ config: c, secret: SECRET, store });
    const m = model(c, 'paid-summaries');
    expect(await one.mayPay('tenant-a', m)).toBe(false);
    one.accepted('tenant-a', m);
    await settle();
    expect(await one.mayPay('tenant-a', m)).toBe(true);
    expect(await two.mayPay('tenant-a', m)).toBe(true);
    expect(await two.mayPay('tenant-b', m)).toBe(false);
  });

  it('pays for nobody it has not seen accepted while the store is down', async () => {
    const c = config(BOTH);
    const errors: string[] = [];
    const down: AcceptedStore = { markAccepted: () => Promise.reject(new StoreUnavailableError('down')), isAccepted: () => Promise.reject(new StoreUnavailableError('down')) };
    const proofs = new CredentialProofs({ config: c, secret: SECRET, store: down, onStoreError: (op) => errors.push(op) });
    const m = model(c, 'paid-summaries');
    expect(await proofs.mayPay('tenant-a', m)).toBe(false);
    proofs.accepted('tenant-a', m);
    await settle();
    // What this process saw itself still counts.
    expect(await proofs.mayPay('tenant-a', m)).toBe(true);
    expect(errors).toEqual(['is_accepted', 'mark_accepted']);
  });
});
