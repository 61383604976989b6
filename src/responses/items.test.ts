import { describe, expect, it } from 'vitest';
import { asChatMessage, describeResponseItem, responsesWire } from './items.js';
import type { ResponseItem } from './types.js';

const item = (v: object) => v as unknown as ResponseItem;

describe('Responses items with a type that is not a string', () => {
  it('are items of no kind recap knows, read without throwing', () => {
    for (const type of [5, ['function_call'], { toString: 1 }]) {
      expect(describeResponseItem(item({ type, call_id: 'c1', output: 'x' }))).toEqual({ kind: 'other', calls: [], resultOf: null });
      expect(asChatMessage(item({ type, role: 'user', content: 'hi' }))).toMatchObject({ role: 'assistant' });
    }
  });

  it('show a content part of such a type as an unknown part', () => {
    expect(asChatMessage(item({ type: 'message', role: 'user', content: [{ type: { toString: 1 } }] }))).toEqual({ role: 'user', content: [{ type: 'unknown' }] });
    expect(responsesWire.sealedTextOf(item({ type: 'message', role: 'system', content: [{ type: 'text', text: 5 }] }))).toBe('');
  });
});
