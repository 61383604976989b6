// Pixel size of an image sent inline as a `data:` URL, read from its header (PNG, GIF, WebP, JPEG),
// so that image tokens follow the real size instead of an assumed one. Remote URLs are not
// fetched: counting must not do network I/O.

export interface ImageSize {
  width: number;
  height: number;
}

// Headers sit in the first bytes; JPEG's size marker can follow EXIF data, which is usually small.
const HEADER_BASE64_CHARS = 96 * 1024;

export function imageSizeFromDataUrl(url: string): ImageSize | undefined {
  if (!url.startsWith('data:')) return undefined;
  const comma = url.indexOf(',');
  if (comma < 0 || !url.slice(0, comma).endsWith(';base64')) return undefined;
  const bytes = Buffer.from(url.slice(comma + 1, comma + 1 + HEADER_BASE64_CHARS), 'base64');
  return pngSize(bytes) ?? gifSize(bytes) ?? webpSize(bytes) ?? jpegSize(bytes);
}

function valid(width: number, height: number): ImageSize | undefined {
  return width > 0 && height > 0 ? { width, height } : undefined;
}

function pngSize(b: Buffer): ImageSize | undefined {
  if (b.length < 24 || b.readUInt32BE(0) !== 0x89504e47 || b.toString('latin1', 12, 16) !== 'IHDR') return undefined;
  return valid(b.readUInt32BE(16), b.readUInt32BE(20));
}

function gifSize(b: Buffer): ImageSize | undefined {
  if (b.length < 10 || b.toString('latin1', 0, 4) !== 'GIF8') return undefined;
  return valid(b.readUInt16LE(6), b.readUInt16LE(8));
}

function webpSize(b: Buffer): ImageSize | undefined {
  if (b.length < 30 || b.toString('latin1', 0, 4) !== 'RIFF' || b.toString('latin1', 8, 12) !== 'WEBP') return undefined;
  const chunk = b.toString('latin1', 12, 16);
  if (chunk === 'VP8X') return valid(b.readUIntLE(24, 3) + 1, b.readUIntLE(27, 3) + 1);
  if (chunk === 'VP8 ') return valid(b.readUInt16LE(26) & 0x3fff, b.readUInt16LE(28) & 0x3fff);
  if (chunk === 'VP8L') {
    const bits = b.readUInt32LE(21);
    return valid((bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
  }
  return undefined;
}

// Start-of-frame markers carry the size; C4 (DHT), C8 (JPG) and CC (DAC) share the range but do not.
function isStartOfFrame(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

function jpegSize(b: Buffer): ImageSize | undefined {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return undefined;
  let at = 2;
  while (at + 9 <= b.length) {
    if (b[at] !== 0xff) return undefined;
    const marker = b[at + 1] as number;
    if (marker === 0xff) {
      at++; // fill byte
      continue;
    }
    if (isStartOfFrame(marker)) return valid(b.readUInt16BE(at + 7), b.readUInt16BE(at + 5));
    at += 2 + b.readUInt16BE(at + 2);
  }
  return undefined;
}
