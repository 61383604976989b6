// A simulated provider prompt cache, as providers bill it: pure logic, no I/O, time passed in.
// A prompt is a list of blocks (the tools, each message), each with a key (its exact content) and
// its tokens. The cache sees only block boundaries, so a change inside a block loses that whole
// block, a little more than a provider loses.
//
// - `automatic` (OpenAI, DeepSeek): the longest prefix the prompt shares with a recent prompt of
//   the same model is read from the cache, counted from 1,024 tokens in steps of 128; nothing is
//   billed for writing.
// - `breakpoints` (Anthropic): a prompt is cached at its `cache_control` breakpoints: the prefix up
//   to each is written (billed at the write price), and a later prompt reads the longest written
//   prefix that ends at one of its breakpoints or at most 20 blocks before one. Prefixes under
//   1,024 tokens are not cached. Every read refreshes an entry's lifetime.

export interface PromptBlock {
  /** The block's exact content (or a hash of it). */
  key: string;
  tokens: number;
  /** Anthropic: a `cache_control` breakpoint sits on this block. */
  breakpoint?: boolean;
}

export interface CacheUse {
  prompt: number;
  /** Read from the cache. */
  cached: number;
  /** Written to the cache (breakpoints only). */
  written: number;
}

export interface PromptCacheOptions {
  mode: 'automatic' | 'breakpoints';
  /** How long an entry lives without use; 5 minutes by default. */
  ttlMs?: number;
}

const MIN_CACHED = 1024;
const STEP = 128;
const LOOKBACK_BLOCKS = 20;
const DEFAULT_TTL_MS = 5 * 60_000;

export interface PromptCache {
  /** Bills one prompt of `model` sent at `now` (ms) and remembers it. */
  send(model: string, blocks: readonly PromptBlock[], now: number): CacheUse;
}

/** Names prefixes by small numbers: a prefix is (the prefix before it, its last block's content). */
class PrefixNames {
  private readonly blocks = new Map<string, number>();
  private readonly prefixes = new Map<string, number>();

  /** keys[i] names blocks [0, i]. */
  of(blocks: readonly PromptBlock[]): number[] {
    const keys: number[] = [];
    let prefix = -1;
    for (const b of blocks) {
      let block = this.blocks.get(b.key);
      if (block === undefined) {
        block = this.blocks.size;
        this.blocks.set(b.key, block);
      }
      const pair = `${prefix},${block}`;
      let next = this.prefixes.get(pair);
      if (next === undefined) {
        next = this.prefixes.size;
        this.prefixes.set(pair, next);
      }
      keys.push(next);
      prefix = next;
    }
    return keys;
  }
}

function cumulative(blocks: readonly PromptBlock[]): number[] {
  const sums: number[] = [];
  let total = 0;
  for (const b of blocks) {
    total += b.tokens;
    sums.push(total);
  }
  return sums;
}

export function createPromptCache(options: PromptCacheOptions): PromptCache {
  const ttl = options.ttlMs ?? DEFAULT_TTL_MS;
  const names = new PrefixNames();
  /** Per model: prefix name → when it was last used. */
  const entries = new Map<string, Map<number, number>>();
  const live = (model: string, now: number) => {
    let m = entries.get(model);
    if (!m) {
      m = new Map();
      entries.set(model, m);
    }
    for (const [key, at] of m) if (now - at > ttl) m.delete(key);
    return m;
  };

  function automatic(m: Map<number, number>, blocks: readonly PromptBlock[], now: number): CacheUse {
    const keys = names.of(blocks);
    const sums = cumulative(blocks);
    const prompt = sums.at(-1) ?? 0;
    let shared = 0;
    for (let i = keys.length - 1; i >= 0; i--) {
      if (m.has(keys[i]!)) {
        shared = sums[i]!;
        break;
      }
    }
    // Every prefix of this prompt can be matched by the next one.
    for (const k of keys) m.set(k, now);
    const cached = shared < MIN_CACHED ? 0 : MIN_CACHED + Math.floor((shared - MIN_CACHED) / STEP) * STEP;
    return { prompt, cached, written: 0 };
  }

  function breakpoints(m: Map<number, number>, blocks: readonly PromptBlock[], now: number): CacheUse {
    const keys = names.of(blocks);
    const sums = cumulative(blocks);
    const prompt = sums.at(-1) ?? 0;
    const marks = blocks.flatMap((b, i) => (b.breakpoint ? [i] : []));
    let read = -1;
    for (const mark of marks) {
      for (let i = mark; i >= Math.max(0, mark - LOOKBACK_BLOCKS); i--) {
        if (i <= read) break;
        if (m.has(keys[i]!)) {
          read = i;
          break;
        }
      }
    }
    const cached = read >= 0 ? sums[read]! : 0;
    if (read >= 0) m.set(keys[read]!, now);
    const last = marks.at(-1);
    let written = 0;
    if (last !== undefined && sums[last]! >= MIN_CACHED && last > read) {
      written = sums[last]! - cached;
      for (const mark of marks) if (sums[mark]! >= MIN_CACHED) m.set(keys[mark]!, now);
    }
    return { prompt, cached, written };
  }

  return {
    send(model, blocks, now) {
      const m = live(model, now);
      return options.mode === 'automatic' ? automatic(m, blocks, now) : breakpoints(m, blocks, now);
    },
  };
}
