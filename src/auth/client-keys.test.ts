import { createHash, timingSafeEqual } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { compareDigests, createClientKeys } from './client-keys.js';

const WEB = 'ck-web-4f1a9d2c7e5b3a8f6d0c1e9b7a5d3f2c';
const BATCH = 'ck-batch-8b6d4f2a0c9e7b5d3f1a8c6e4b2d0f9a';

describe('createClientKeys', () => {
  const keys = createClientKeys([
    { name: 'web', key: WEB },
    { name: 'batch', key: BATCH, models: ['gpt-4o-mini', 'gpt-4.1*'], tenant_tokens_per_window: 5000 },
  ]);

  it('finds the client a key belongs to, whichever its place in the list', () => {
    expect(keys.find(WEB)?.name).toBe('web');
    expect(keys.find(BATCH)).toMatchObject({ name: 'batch', tokensPerWindow: 5000, restricted: true });
  });

  it('finds nobody for a near miss: a prefix, a longer key, another case, empty', () => {
    for (const near of [WEB.slice(0, -1), `${WEB}0`, WEB.toUpperCase(), '', ' ', `${WEB} `]) expect(keys.find(near)).toBeUndefined();
  });

  it("applies a client's model globs, and no limit without them", () => {
    const batch = keys.find(BATCH)!;
    expect(['gpt-4o-mini', 'gpt-4.1', 'gpt-4.1-nano'].map(batch.mayUse)).toEqual([true, true, true]);
    expect(['gpt-4o', 'gpt-4o-mini-2', 'o3'].map(batch.mayUse)).toEqual([false, false, false]);
    const web = keys.find(WEB)!;
    expect(web.restricted).toBe(false);
    expect(web.mayUse('anything')).toBe(true);
  });

  it('keeps no key in what it hands out', () => {
    expect(JSON.stringify(keys.find(WEB))).not.toContain(WEB);
  });

  it("keeps only SHA-256 digests, and compares the presented key's digest with every one, past a match", () => {
    const sha256 = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');
    const seen: [string, string][] = [];
    const recording = createClientKeys(
      [
        { name: 'web', key: WEB },
        { name: 'batch', key: BATCH },
      ],
      (presented, stored) => {
        seen.push([presented.toString('hex'), stored.toString('hex')]);
        return compareDigests(presented, stored);
      },
    );
    expect(recording.find(WEB)?.name).toBe('web');
    expect(recording.find('ck-wrong')).toBeUndefined();
    // Each lookup hashes the presented key and compares it with each client's digest, even once
    // the first one matched: two 32-byte digests every time, never a key.
    expect(seen).toEqual([
      [sha256(WEB), sha256(WEB)],
      [sha256(WEB), sha256(BATCH)],
      [sha256('ck-wrong'), sha256(WEB)],
      [sha256('ck-wrong'), sha256(BATCH)],
    ]);
  });

  it("compares digests with node's constant-time timingSafeEqual", () => {
    expect(compareDigests).toBe(timingSafeEqual);
  });
});
