import { describe, expect, it } from 'vitest';
import { modelSchema } from '../config/schema.js';
import { recallRefusal } from './offer.js';

const model = (extra: Record<string, unknown> = {}) =>
  modelSchema.parse({ match: 'm', upstream: 'u', context_window: 8000, max_output_tokens: 500, compaction: { strategy: 'window' }, ...extra });
const tools = [{ type: 'function', function: { name: 'read_file', parameters: {} } }];

describe('recallRefusal', () => {
  it('offers recall where compaction is on, with or without tools, for auto, required or recap_recall itself', () => {
    for (const toolChoice of [undefined, 'auto', 'required', { type: 'function', function: { name: 'recap_recall' } }]) {
      expect(recallRefusal(model(), { toolChoice, tools })).toBeNull();
    }
    expect(recallRefusal(model(), { toolChoice: undefined, tools: undefined, n: 1 })).toBeNull();
  });

  it('is off without a model config, with compaction off or in audit mode, or when the config turns it off', () => {
    expect(recallRefusal(undefined, { toolChoice: undefined, tools })).toBe('off');
    expect(recallRefusal(model({ compaction: { strategy: 'off' } }), { toolChoice: undefined, tools })).toBe('off');
    expect(recallRefusal(model({ compaction: { strategy: 'window', mode: 'audit' } }), { toolChoice: undefined, tools })).toBe('off');
    expect(recallRefusal(model({ recall: { enabled: false } }), { toolChoice: undefined, tools })).toBe('off');
  });

  it('is not offered when the model could not call it, for several choices, or beside functions or a tool of its name', () => {
    expect(recallRefusal(model(), { toolChoice: 'none', tools })).toBe('tool_choice');
    expect(recallRefusal(model(), { toolChoice: { type: 'function', function: { name: 'read_file' } }, tools })).toBe('tool_choice');
    expect(recallRefusal(model(), { toolChoice: { type: 'function', name: 'read_file' }, tools })).toBe('tool_choice');
    expect(recallRefusal(model(), { toolChoice: { type: 'allowed_tools', allowed_tools: { mode: 'auto', tools: [] } }, tools })).toBe('tool_choice');
    expect(recallRefusal(model(), { toolChoice: undefined, tools, n: 2 })).toBe('n');
    expect(recallRefusal(model(), { toolChoice: undefined, tools: undefined, functions: [{ name: 'f' }] })).toBe('functions');
    expect(recallRefusal(model(), { toolChoice: undefined, tools: [{ type: 'function', function: { name: 'recap_recall' } }] })).toBe('name_taken');
    expect(recallRefusal(model(), { toolChoice: undefined, tools: { a: 1 } })).toBe('tools_shape');
  });
});
