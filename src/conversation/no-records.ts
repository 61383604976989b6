import type { BackgroundCompactor } from '../pipeline/background.js';
import type { PipelineDeps } from '../pipeline/pipeline-deps.js';
import type { Records } from '../pipeline/records.js';

// What the compaction step works with for a caller that keeps no records (a request without any
// credential, server.anonymous off): it is nobody in particular, so whatever it stored another
// anonymous caller could read. Its over-budget requests are still compacted inline, the way they
// are while the store is down: no checkpoint read or written, no lock, no background preparation.

const nothingKept = (store: Records['store']): Records => ({
  store,
  load: async () => null,
  add: async () => false,
  // As with a store that cannot answer: compact without a lock (there is nothing to share).
  tryLock: async () => 'unavailable',
  unlock: async () => undefined,
  isLocked: async () => false,
  forget: async () => false,
});

const noPreparation: BackgroundCompactor = {
  consider: () => undefined,
  idle: async () => undefined,
  close: async () => undefined,
};

export function withoutRecords(deps: PipelineDeps): PipelineDeps {
  return { ...deps, records: nothingKept(deps.records.store), background: noPreparation };
}
