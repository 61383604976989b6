import { Response } from 'undici';
import { describe, expect, it } from 'vitest';
import { readForm } from './form-body.js';

const body = (parts: string[]) => Buffer.from(`${parts.map((p) => `--x\r\n${p}\r\n`).join('')}--x--\r\n`);

describe('readForm', () => {
  it('reads the model and encodes the form anew, as read', async () => {
    const raw = body([
      'Content-Disposition: form-data; name="model"\r\n\r\nwhisper-1',
      'Content-Disposition: form-data; name="file"; filename="a.bin"\r\nContent-Type: application/octet-stream\r\n\r\n\u0000\u0001',
    ]);
    const read = await readForm(raw, 'multipart/form-data; boundary=x');
    expect(read.model).toBe('whisper-1');
    expect(read.contentType).toMatch(/^multipart\/form-data; boundary=/);
    const again = await new Response(read.bytes, { headers: { 'content-type': read.contentType } }).formData();
    expect(again.get('model')).toBe('whisper-1');
    const file = again.get('file');
    expect(typeof file === 'object' && file !== null ? Buffer.from(await file.arrayBuffer()) : file).toEqual(Buffer.from([0, 1]));
  });

  it('has no model when the form names none', async () => {
    expect((await readForm(body(['Content-Disposition: form-data; name="purpose"\r\n\r\nbatch']), 'multipart/form-data; boundary=x')).model).toBeUndefined();
  });
});
