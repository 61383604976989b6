import type { ImagePart } from '../messages/types.js';
import { imageSizeFromDataUrl, type ImageSize } from './image-size.js';

// Image input tokens by OpenAI's documented tile formula (gpt-4o / gpt-4-turbo vision):
// `detail: low` costs a flat 85 tokens. Otherwise the image is scaled to fit in 2048x2048, then
// down so its shortest side is at most 768 px, and costs 85 + 170 per 512 px tile.
// Newer models bill images in 32 px patches with their own multipliers; the per-model calibration
// absorbs that difference. The size comes from a data URL's header; for a remote URL (never
// fetched) or an unreadable header we assume a 1024x1024 image: 768x768 after scaling, 4 tiles,
// 85 + 170 * 4 = 765 tokens, the cost of a typical photo or screenshot.

const IMAGE_BASE_TOKENS = 85;
const IMAGE_TILE_TOKENS = 170;
const TILE_PX = 512;
const MAX_SIDE_PX = 2048;
const SHORT_SIDE_PX = 768;
const ASSUMED_IMAGE_SIZE: ImageSize = { width: 1024, height: 1024 };

export function tileTokens({ width, height }: ImageSize): number {
  let w = width;
  let h = height;
  const fit = Math.min(1, MAX_SIDE_PX / Math.max(w, h));
  w *= fit;
  h *= fit;
  const shrink = Math.min(1, SHORT_SIDE_PX / Math.min(w, h));
  w *= shrink;
  h *= shrink;
  return IMAGE_BASE_TOKENS + IMAGE_TILE_TOKENS * Math.ceil(w / TILE_PX) * Math.ceil(h / TILE_PX);
}

export function imageTokens(part: ImagePart): number {
  const image = part.image_url;
  if (image?.detail === 'low') return IMAGE_BASE_TOKENS;
  const url = typeof image?.url === 'string' ? image.url : '';
  return tileTokens(imageSizeFromDataUrl(url) ?? ASSUMED_IMAGE_SIZE);
}
