import { describe, expect, it } from 'vitest';
import { ASSUMED_IMAGE_TOKENS, anthropicImageTokens, mediaTokens, PDF_PAGE_TOKENS, pdfPages } from './media-tokens.js';

function png(width: number, height: number): string {
  const b = Buffer.alloc(33);
  b.writeUInt32BE(0x89504e47, 0);
  b.writeUInt32BE(0x0d0a1a0a, 4);
  b.writeUInt32BE(13, 8);
  b.write('IHDR', 12, 'latin1');
  b.writeUInt32BE(width, 16);
  b.writeUInt32BE(height, 20);
  return b.toString('base64');
}

describe('images and documents as Anthropic counts them', () => {
  it('follows the documented table: 1092x1092 ≈ 1590, 200x200 ≈ 54, a big image scaled to the limits', () => {
    expect(anthropicImageTokens({ width: 1092, height: 1092 })).toBe(1590);
    expect(anthropicImageTokens({ width: 200, height: 200 })).toBe(54);
    expect(anthropicImageTokens({ width: 4000, height: 3000 })).toBe(1608);
  });

  it('reads the size of a base64 image, assumes the largest for a URL, counts PDF pages', () => {
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png(200, 200) } };
    const remote = { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } };
    const pdf = Buffer.from('%PDF-1.4 1 0 obj <</Type /Pages /Count 2>> 2 0 obj <</Type /Page>> 3 0 obj <</Type/Page>>').toString('base64');
    expect(pdfPages(pdf)).toBe(2);
    const doc = { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: pdf } };
    expect(mediaTokens([image])).toBe(54);
    expect(mediaTokens([remote])).toBe(ASSUMED_IMAGE_TOKENS);
    expect(mediaTokens([{ type: 'tool_result', tool_use_id: 't', content: [image, doc] }])).toBe(54 + 2 * PDF_PAGE_TOKENS);
    expect(mediaTokens([{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'hi' } }])).toBe(0);
  });
});
