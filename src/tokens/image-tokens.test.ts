import { describe, expect, it } from 'vitest';
import { imageTokens, tileTokens } from './image-tokens.js';

function pngDataUrl(width: number, height: number): string {
  const b = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b, 0);
  b.write('IHDR', 12, 'latin1');
  b.writeUInt32BE(width, 16);
  b.writeUInt32BE(height, 20);
  return `data:image/png;base64,${b.toString('base64')}`;
}

describe('image tokens', () => {
  // The worked examples of OpenAI's vision guide.
  it('follows the documented tile formula', () => {
    expect(tileTokens({ width: 1024, height: 1024 })).toBe(765);
    expect(tileTokens({ width: 2048, height: 4096 })).toBe(1105);
    expect(tileTokens({ width: 512, height: 512 })).toBe(255);
  });

  it('costs 85 tokens at low detail whatever the size', () => {
    expect(imageTokens({ type: 'image_url', image_url: { url: pngDataUrl(4096, 8192), detail: 'low' } })).toBe(85);
  });

  it('uses the size in a data URL and assumes 1024x1024 for a remote URL', () => {
    expect(imageTokens({ type: 'image_url', image_url: { url: pngDataUrl(2048, 4096), detail: 'high' } })).toBe(1105);
    expect(imageTokens({ type: 'image_url', image_url: { url: 'https://example.com/a.png' } })).toBe(765);
    expect(imageTokens({ type: 'image_url', image_url: { url: 'https://example.com/a.png', detail: 'auto' } })).toBe(765);
  });
});
