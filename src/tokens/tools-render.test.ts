import { describe, expect, it } from 'vitest';
import { renderFunctionNamespace } from './tools-render.js';

describe('renderFunctionNamespace', () => {
  it('renders a function as a TypeScript type with comments, optional marks and enums', () => {
    const text = renderFunctionNamespace([
      {
        name: 'get_current_weather',
        description: 'Get the current weather in a given location',
        parameters: {
          type: 'object',
          properties: {
            location: { type: 'string', description: 'The city and state, e.g. San Francisco, CA' },
            unit: { type: 'string', enum: ['celsius', 'fahrenheit'], default: 'celsius' },
          },
          required: ['location'],
        },
      },
    ]);
    expect(text).toBe(
      [
        'namespace functions {',
        '',
        '// Get the current weather in a given location',
        'type get_current_weather = (_: {',
        '// The city and state, e.g. San Francisco, CA',
        'location: string,',
        'unit?: "celsius" | "fahrenheit", // default: "celsius"',
        '}) => any;',
        '',
        '} // namespace functions',
      ].join('\n'),
    );
  });

  it('renders a function without parameters as a nullary type', () => {
    expect(renderFunctionNamespace([{ name: 'ping', parameters: { type: 'object', properties: {} } }])).toBe(
      'namespace functions {\n\ntype ping = () => any;\n\n} // namespace functions',
    );
  });

  it('renders nested objects, arrays, unions, nullable types and local refs', () => {
    const text = renderFunctionNamespace([
      {
        name: 'save',
        parameters: {
          type: 'object',
          $defs: { Tag: { type: 'object', properties: { label: { type: 'string' } }, required: ['label'] } },
          properties: {
            tags: { type: 'array', items: { $ref: '#/$defs/Tag' } },
            note: { type: ['string', 'null'] },
            count: { anyOf: [{ type: 'integer' }, { const: 'all' }] },
            self: { $ref: '#/properties/self' },
          },
          required: ['tags'],
        },
      },
    ]);
    expect(text).toContain('tags: {\n  label: string,\n}[],');
    expect(text).toContain('note?: string | null,');
    expect(text).toContain('count?: number | "all",');
    // A recursive ref stops after a few rounds instead of looping.
    expect(text).toContain('self?: any,');
  });
});
