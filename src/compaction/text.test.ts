import { describe, expect, it } from 'vitest';
import { contentText, headChars, tailChars } from './text.js';

describe('contentText', () => {
  it('returns string content as is and treats null/absent as empty', () => {
    expect(contentText('hello')).toBe('hello');
    expect(contentText(null)).toBe('');
    expect(contentText(undefined)).toBe('');
  });

  it('joins text parts and leaves placeholders for images and other parts', () => {
    const content = [
      { type: 'text', text: 'look at this' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
      { type: 'input_audio', input_audio: { data: 'xx', format: 'wav' } },
    ];
    expect(contentText(content)).toBe('look at this\n[image]\n[input_audio]');
  });

  it('survives malformed parts instead of throwing', () => {
    expect(contentText([null, 'x', { type: 'text' }] as never)).toBe('[unknown]\n[unknown]\n[text]');
  });
});

describe('headChars / tailChars', () => {
  it('never cut an emoji in half', () => {
    const text = 'ab😀cd';
    expect(headChars(text, 3)).toBe('ab');
    expect(headChars(text, 4)).toBe('ab😀');
    expect(tailChars(text, 3)).toBe('cd');
    expect(tailChars(text, 4)).toBe('😀cd');
  });

  it('return the whole text when the bound is not smaller', () => {
    expect(headChars('abc', 10)).toBe('abc');
    expect(tailChars('abc', 3)).toBe('abc');
    expect(tailChars('abc', 0)).toBe('');
  });
});
