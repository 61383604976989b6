import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConversationKey } from '../src/store/store.js';
import { overBudgetHistory } from './helpers/conversation.js';
import { type Harness, smallModel, startHarness, SUMMARIZER } from './helpers/harness.js';

// Rule 9 at its narrowest: another request's checkpoint can land between this request's first
// read of the record and its claim of the compaction lock. recap reads the record again under the
// claim and reuses what landed instead of summarizing the same span twice. The interleaving is
// forced by landing the checkpoint from inside the request's own claim.

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ fake: { summarizerModel: SUMMARIZER }, extra: { background: { enabled: false } }, models: [smallModel()] });
});
afterAll(async () => h.close());

describe('single flight', () => {
  it('reuses a checkpoint that landed between its first read of the record and taking the lock', async () => {
    const records = h.recap.runtime.records;
    const { load, tryLock } = records;
    let key: ConversationKey | undefined;
    records.load = (k) => ((key = k), load(k));
    const client = h.client({ conversation: 'lock-race' });
    const messages = overBudgetHistory();

    const first = await client.chat.completions.create({ model: 'gpt-test-small', messages }).withResponse();
    expect(first.response.headers.get('x-recap-action')).toBe('compacted');
    records.load = load;
    const record = await load(key!);
    if (!record || record === 'unavailable') throw new Error('the first compaction stored nothing');
    // Back to before that write: the next request reads no record...
    await records.forget(key!);
    // ...and the checkpoint lands just before it takes the lock.
    records.tryLock = async (k, claim, ttl) => {
      records.tryLock = tryLock;
      await records.add(k, record.checkpoints.at(-1)!, []);
      return tryLock(k, claim, ttl);
    };
    const calls = h.fake.summarizerRequests().length;

    const second = await client.chat.completions.create({ model: 'gpt-test-small', messages }).withResponse();
    expect(second.response.headers.get('x-recap-action')).toBe('reused');
    expect(h.fake.summarizerRequests()).toHaveLength(calls);
    expect(await records.readLocks(key!)).toMatchObject({ holders: [] });
  });
});
