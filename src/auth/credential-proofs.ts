import { createHmac } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Config, ModelConfig } from '../config/config.js';
import type { Store } from '../store/store.js';

// Without `clients`, recap does not know who a caller is: the upstream judges the caller's
// credential. When the summarizer's upstream has recap's own api_key but the model's upstream takes
// the caller's credential, a summary would be paid by recap before the upstream had a say: junk
// keys could spend recap's key at will (one summary per request, each then refused with a 401).
// So for such models recap pays summaries only for a credential the upstream has accepted (a 2xx
// reply) within store.ttl_seconds; until then an over-budget request is degraded (its oldest rounds
// dropped for that request only), and its first 2xx makes the credential accepted.

export type AcceptedStore = Pick<Store, 'markAccepted' | 'isAccepted'>;

export interface CredentialProofsOptions {
  config: Config;
  secret: string;
  store: AcceptedStore;
  onStoreError?: (op: 'is_accepted' | 'mark_accepted', err: unknown) => void;
}

// A credential marked in the store is marked again only after this, not on every reply.
const REMARK_MS = 10 * 60_000;

export class CredentialProofs {
  private readonly ttlMs: number;
  /** Accepted credential ids known to this process, and when this process last marked them. */
  private readonly known: LRUCache<string, number>;

  constructor(private readonly options: CredentialProofsOptions) {
    this.ttlMs = options.config.store.ttl_seconds * 1000;
    this.known = new LRUCache({ max: 100_000, ttl: this.ttlMs });
  }

  /** Whether recap pays this model's summaries while only the upstream checks the caller. */
  needsProof(model: ModelConfig): boolean {
    const { clients, upstreams } = this.options.config;
    const { compaction } = model;
    if (clients || compaction.strategy !== 'summarize' || upstreams[model.upstream]?.api_key) return false;
    return Boolean(upstreams[compaction.summarizer?.upstream ?? model.upstream]?.api_key);
  }

  /** Whether recap may pay a summary for this tenant on this model. */
  async mayPay(tenant: string, model: ModelConfig): Promise<boolean> {
    if (!this.needsProof(model)) return true;
    const id = this.idOf(tenant, model.upstream);
    if (this.known.has(id)) return true;
    try {
      if (!(await this.options.store.isAccepted(id))) return false;
    } catch (err) {
      // Unknown is not accepted: while the store cannot answer, only what this process saw counts.
      this.options.onStoreError?.('is_accepted', err);
      return false;
    }
    this.known.set(id, 0);
    return true;
  }

  /** The model's upstream answered this tenant's request with a 2xx. */
  accepted(tenant: string, model: ModelConfig): void {
    if (!this.needsProof(model)) return;
    const id = this.idOf(tenant, model.upstream);
    const now = Date.now();
    if (now - (this.known.get(id) ?? 0) < REMARK_MS) return;
    this.known.set(id, now);
    this.options.store.markAccepted(id, this.ttlMs).catch((err: unknown) => this.options.onStoreError?.('mark_accepted', err));
  }

  private idOf(tenant: string, upstream: string): string {
    return createHmac('sha256', this.options.secret).update('accepted\0').update(tenant).update('\0').update(upstream).digest('base64url');
  }
}
