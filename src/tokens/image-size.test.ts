import { describe, expect, it } from 'vitest';
import { imageSizeFromDataUrl } from './image-size.js';

function dataUrl(mime: string, bytes: Buffer): string {
  return `data:${mime};base64,${bytes.toString('base64')}`;
}

function png(width: number, height: number): Buffer {
  const b = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b, 0);
  b.writeUInt32BE(13, 8);
  b.write('IHDR', 12, 'latin1');
  b.writeUInt32BE(width, 16);
  b.writeUInt32BE(height, 20);
  return b;
}

function gif(width: number, height: number): Buffer {
  const b = Buffer.alloc(13);
  b.write('GIF89a', 0, 'latin1');
  b.writeUInt16LE(width, 6);
  b.writeUInt16LE(height, 8);
  return b;
}

function jpeg(width: number, height: number): Buffer {
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x10, ...Buffer.from('JFIF\0'), 1, 1, 0, 0, 1, 0, 1, 0, 0]);
  const sof = Buffer.alloc(19);
  sof.writeUInt16BE(0xffc0, 0);
  sof.writeUInt16BE(17, 2);
  sof[4] = 8;
  sof.writeUInt16BE(height, 5);
  sof.writeUInt16BE(width, 7);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, sof]);
}

function webpVp8x(width: number, height: number): Buffer {
  const b = Buffer.alloc(30);
  b.write('RIFF', 0, 'latin1');
  b.write('WEBP', 8, 'latin1');
  b.write('VP8X', 12, 'latin1');
  b.writeUIntLE(width - 1, 24, 3);
  b.writeUIntLE(height - 1, 27, 3);
  return b;
}

describe('imageSizeFromDataUrl', () => {
  it('reads PNG, GIF, JPEG and WebP headers', () => {
    expect(imageSizeFromDataUrl(dataUrl('image/png', png(1920, 1080)))).toEqual({ width: 1920, height: 1080 });
    expect(imageSizeFromDataUrl(dataUrl('image/gif', gif(320, 240)))).toEqual({ width: 320, height: 240 });
    expect(imageSizeFromDataUrl(dataUrl('image/jpeg', jpeg(4032, 3024)))).toEqual({ width: 4032, height: 3024 });
    expect(imageSizeFromDataUrl(dataUrl('image/webp', webpVp8x(800, 600)))).toEqual({ width: 800, height: 600 });
  });

  it('gives up on remote URLs, non-base64 data and unknown formats', () => {
    expect(imageSizeFromDataUrl('https://example.com/cat.png')).toBeUndefined();
    expect(imageSizeFromDataUrl('data:image/svg+xml,<svg width="10"/>')).toBeUndefined();
    expect(imageSizeFromDataUrl(dataUrl('image/bmp', Buffer.from('BM not a real header at all')))).toBeUndefined();
    expect(imageSizeFromDataUrl(dataUrl('image/png', png(1, 1).subarray(0, 12)))).toBeUndefined();
  });
});
