// The fake Anthropic upstream's own token count of a request and its simulated prompt cache. It is
// deliberately not recap's estimate (a BPE count plus framing: see CLAUDE_OVER_O200K), so that a test
// saying "within the window by the fake's count" checks recap's calibrated estimate against an
// independent count, as Anthropic's real one is. The cache works as Anthropic documents it: a
// request's prefix up to a `cache_control` breakpoint (tools, then system, then messages, block by
// block) is written at that breakpoint, and a later request whose prefix matches one written
// before reads it; what lies after the last breakpoint is neither.
import { createHash } from 'node:crypto';
import { getTokenizer } from '../tokens/encodings.js';
import type { FakeCount } from './fake-anthropic-types.js';

// Claude's tokenizers make about a tenth more tokens than o200k_base of the same text: the fake
// counts o200k_base × 1.1 (each distinct text once), a count of its own that recap's `estimate`
// can only approach through calibration, as it approaches Anthropic's.
const CLAUDE_OVER_O200K = 1.1;
const counted = new Map<string, number>();
const MAX_CACHED = 50_000;
const BLOCK_TOKENS = 3;
const MESSAGE_TOKENS = 4;
/** About what Anthropic charges for an image near its 1.15 megapixel limit, and per document page. */
export const FAKE_IMAGE_TOKENS = 1600;
export const FAKE_DOCUMENT_TOKENS = 2000;

function textTokens(text: string): number {
  let n = counted.get(text);
  if (n === undefined) {
    n = Math.ceil(getTokenizer('o200k_base').count(text) * CLAUDE_OVER_O200K);
    if (counted.size >= MAX_CACHED) counted.clear();
    counted.set(text, n);
  }
  return n;
}

/** The o200k_base tokens that make `tokens` by the fake's count: what a reply of max_tokens may hold. */
export const o200kOfTokens = (tokens: number): number => Math.floor(tokens / CLAUDE_OVER_O200K);

/** One cacheable unit: a tool, a system block, or a message's content block. */
interface Unit {
  key: string;
  tokens: number;
  breakpoint: boolean;
}

/** The text a block puts before the model: its text, thinking, tool name and input, result content. */
function blockText(block: any): string {
  switch (block?.type) {
    case 'text':
      return String(block.text ?? '');
    case 'thinking':
      return String(block.thinking ?? '');
    case 'redacted_thinking':
      return String(block.data ?? '');
    case 'tool_use':
    case 'server_tool_use':
      return `${String(block.name)} ${JSON.stringify(block.input ?? {})}`;
    case 'tool_result':
      return typeof block.content === 'string' ? block.content : Array.isArray(block.content) ? block.content.map(blockText).join('\n') : '';
    default: {
      const { cache_control: _cc, type: _type, ...rest } = block ?? {};
      return JSON.stringify(rest);
    }
  }
}

function mediaTokens(block: any): number {
  if (block?.type === 'image') return FAKE_IMAGE_TOKENS;
  if (block?.type === 'document') return FAKE_DOCUMENT_TOKENS;
  if (block?.type === 'tool_result' && Array.isArray(block.content)) return block.content.reduce((n: number, b: any) => n + mediaTokens(b), 0);
  return 0;
}

function blockTokens(block: any): number {
  if (typeof block === 'string') return textTokens(block);
  if (block?.type === 'image' || block?.type === 'document') return mediaTokens(block);
  return BLOCK_TOKENS + textTokens(blockText(block)) + mediaTokens(block);
}

function unitsOf(request: any): Unit[] {
  const units: Unit[] = [];
  const push = (value: unknown, tokens: number): void => {
    const v = value as { cache_control?: unknown } | null;
    const { cache_control: cc, ...rest } = typeof v === 'object' && v !== null ? v : { cache_control: undefined };
    units.push({ key: JSON.stringify(typeof value === 'object' ? rest : value), tokens, breakpoint: cc !== undefined && cc !== null });
  };
  for (const tool of Array.isArray(request?.tools) ? request.tools : []) push(tool, textTokens(JSON.stringify(tool)));
  const system = request?.system;
  if (typeof system === 'string') push(system, textTokens(system));
  else if (Array.isArray(system)) for (const block of system) push(block, blockTokens(block));
  for (const message of Array.isArray(request?.messages) ? request.messages : []) {
    units.push({ key: `role:${String(message?.role)}`, tokens: MESSAGE_TOKENS, breakpoint: false });
    const content = message?.content;
    if (typeof content === 'string') push(content, textTokens(content));
    else if (Array.isArray(content)) for (const block of content) push(block, blockTokens(block));
  }
  return units;
}

/** The fake's count of a request's input, without the cache. */
export function countInput(request: any): number {
  return unitsOf(request).reduce((n, u) => n + u.tokens, 0);
}

/** The prompt cache of one fake: prefixes written at breakpoints, by hash. */
export function createFakePromptCache() {
  const written = new Set<string>();
  return {
    /** Counts the request, reads the longest cached prefix and writes its breakpoints' prefixes. */
    count(request: any): FakeCount {
      const units = unitsOf(request);
      const hash = createHash('sha256').update(String(request?.model));
      let tokens = 0;
      let cacheRead = 0;
      let lastBreakpointTokens = 0;
      const toWrite: string[] = [];
      for (const unit of units) {
        hash.update(`\u0000${unit.key}`);
        tokens += unit.tokens;
        const prefix = hash.copy().digest('hex');
        if (written.has(prefix)) cacheRead = tokens;
        if (unit.breakpoint) {
          lastBreakpointTokens = tokens;
          toWrite.push(prefix);
        }
      }
      // A hit past the last breakpoint is not one Anthropic would look up.
      cacheRead = Math.min(cacheRead, lastBreakpointTokens);
      for (const prefix of toWrite) written.add(prefix);
      return { total: tokens, cacheRead, cacheCreation: Math.max(0, lastBreakpointTokens - cacheRead) };
    },
    reset: () => written.clear(),
  };
}
