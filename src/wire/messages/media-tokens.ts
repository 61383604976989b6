import { type ImageSize, imageSizeFromDataUrl } from '../../tokens/image-size.js';
import type { ContentBlock } from './types.js';

// Images and documents as Anthropic counts them (its vision and PDF docs): an image is first
// scaled down to fit 1568 px on its long edge and about 1.2 megapixels, then costs
// width × height / 750 tokens (at most ~1,600). Its size is read from the base64 data's header;
// for a URL or file source (never fetched) recap assumes the largest image, 1,600 tokens. A PDF
// costs its text plus an image of each page: recap counts 2,000 tokens a page (Anthropic quotes
// 1,500–3,000), the pages counted by their `/Type /Page` objects; a PDF it cannot read counts as
// one page. A plain-text document is counted by its text (count.ts). Calibration from the usage
// Anthropic reports corrects the rest.

const MAX_EDGE_PX = 1568;
// The largest sizes Anthropic lists for each aspect ratio (1092x1092, 951x1268, 896x1344) fit this.
const MAX_PIXELS = 1_206_000;
const PIXELS_PER_TOKEN = 750;
export const ASSUMED_IMAGE_TOKENS = 1600;
export const PDF_PAGE_TOKENS = 2000;

export function anthropicImageTokens({ width, height }: ImageSize): number {
  const edge = Math.min(1, MAX_EDGE_PX / Math.max(width, height));
  let w = width * edge;
  let h = height * edge;
  const area = Math.min(1, Math.sqrt(MAX_PIXELS / (w * h)));
  w *= area;
  h *= area;
  return Math.max(1, Math.ceil((w * h) / PIXELS_PER_TOKEN));
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

function imageTokens(block: ContentBlock): number {
  const source = block.source as { type?: unknown; media_type?: unknown; data?: unknown } | undefined;
  if (source?.type !== 'base64' || typeof source.data !== 'string') return ASSUMED_IMAGE_TOKENS;
  const size = imageSizeFromDataUrl(`data:${str(source.media_type) ?? 'image/png'};base64,${source.data}`);
  return size ? anthropicImageTokens(size) : ASSUMED_IMAGE_TOKENS;
}

const PAGE = /\/Type\s*\/Page(?![a-zA-Z])/g;

export function pdfPages(base64: string): number {
  const pages = Buffer.from(base64, 'base64').toString('latin1').match(PAGE)?.length ?? 0;
  return Math.max(1, pages);
}

function documentTokens(block: ContentBlock): number {
  const source = block.source as { type?: unknown; data?: unknown } | undefined;
  // Text and content sources are text: counted with the message's text.
  if (source?.type === 'text' || source?.type === 'content') return 0;
  if (source?.type === 'base64' && typeof source.data === 'string') return pdfPages(source.data) * PDF_PAGE_TOKENS;
  return PDF_PAGE_TOKENS;
}

/** Whether any of `blocks` costs media tokens (an image, a document that is not text), tool results' content included, without reading its data. */
export function hasMedia(blocks: readonly unknown[]): boolean {
  for (const b of blocks) {
    if (b === null || typeof b !== 'object') continue;
    const block = b as ContentBlock;
    if (block.type === 'image') return true;
    if (block.type === 'document') {
      const source = block.source as { type?: unknown } | undefined;
      if (source?.type !== 'text' && source?.type !== 'content') return true;
    }
    if (block.type === 'tool_result' && Array.isArray(block.content) && hasMedia(block.content)) return true;
  }
  return false;
}

/** Tokens of the images and documents among `blocks`, tool results' content included. */
export function mediaTokens(blocks: readonly unknown[]): number {
  let tokens = 0;
  for (const b of blocks) {
    if (b === null || typeof b !== 'object') continue;
    const block = b as ContentBlock;
    if (block.type === 'image') tokens += imageTokens(block);
    else if (block.type === 'document') tokens += documentTokens(block);
    else if (block.type === 'tool_result' && Array.isArray(block.content)) tokens += mediaTokens(block.content);
  }
  return tokens;
}
