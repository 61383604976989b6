// Renders function definitions the way OpenAI shows them to the model: not as JSON Schema but as
// TypeScript-like declarations in a `functions` namespace (the format behind hmarr's
// openai-chat-tokens and visible in leaked system prompts):
//
//   namespace functions {
//
//   // Get the current weather
//   type get_weather = (_: {
//   // City name
//   location: string,
//   unit?: "celsius" | "fahrenheit", // default: celsius
//   }) => any;
//
//   } // namespace functions
//
// Counting this text approximates the tokens that tool definitions add to the prompt; the
// measured error is in tools-tokens.ts.

export interface FunctionDefinition {
  name: string;
  description?: string;
  parameters?: unknown;
}

import { stringifyJson } from '../body/stringify.js';

type Schema = Record<string, unknown>;

// Schemas from pydantic and zod use local `$ref`s; resolving them deeper than this would only
// follow a recursive type round and round.
const MAX_REF_DEPTH = 4;
// Real schemas nest a few levels (OpenAI's strict mode allows 10). A client may send thousands:
// deeper than this a schema is shown as its JSON text, so rendering neither recurses without
// bound nor indents each line by the depth (quadratic text).
const MAX_NESTING = 32;

function isSchema(v: unknown): v is Schema {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function comment(text: unknown, indent: string): string[] {
  if (typeof text !== 'string' || text.length === 0) return [];
  return text.split('\n').map((line) => `${indent}// ${line}`);
}

class Renderer {
  constructor(private readonly root: Schema) {}

  private resolve(ref: string): Schema | undefined {
    if (!ref.startsWith('#/')) return undefined;
    let node: unknown = this.root;
    for (const key of ref.slice(2).split('/')) node = isSchema(node) ? node[key] : undefined;
    return isSchema(node) ? node : undefined;
  }

  type(schema: unknown, indent: string, depth: number, nesting = 0): string {
    if (!isSchema(schema)) return 'any';
    if (nesting > MAX_NESTING) return stringifyJson(schema);
    const inner = (s: unknown, d = depth) => this.type(s, indent, d, nesting + 1);
    if (typeof schema.$ref === 'string') {
      const target = depth < MAX_REF_DEPTH ? this.resolve(schema.$ref) : undefined;
      return target ? inner(target, depth + 1) : 'any';
    }
    if ('const' in schema) return stringifyJson(schema.const);
    if (Array.isArray(schema.enum)) return schema.enum.map((v) => stringifyJson(v)).join(' | ');
    const union = schema.anyOf ?? schema.oneOf;
    if (Array.isArray(union)) return union.map((s) => inner(s)).join(' | ');
    if (Array.isArray(schema.type)) return schema.type.map((t) => inner({ ...schema, type: t })).join(' | ');
    switch (schema.type) {
      case 'string':
      case 'boolean':
      case 'null':
      case 'number':
        return schema.type;
      case 'integer':
        return 'number';
      case 'array':
        return `${inner(schema.items)}[]`;
      case 'object':
        return isSchema(schema.properties) && Object.keys(schema.properties).length > 0
          ? ['{', ...this.properties(schema, `${indent}  `, depth, nesting + 1), `${indent}}`].join('\n')
          : 'object';
      default:
        return 'any';
    }
  }

  properties(schema: Schema, indent: string, depth: number, nesting = 0): string[] {
    const required = Array.isArray(schema.required) ? schema.required : [];
    const lines: string[] = [];
    for (const [name, prop] of Object.entries(schema.properties as Schema)) {
      const p = isSchema(prop) ? prop : {};
      lines.push(...comment(p.description, indent));
      const optional = required.includes(name) ? '' : '?';
      const fallback = 'default' in p ? ` // default: ${stringifyJson(p.default)}` : '';
      lines.push(`${indent}${name}${optional}: ${this.type(p, indent, depth, nesting)},${fallback}`);
    }
    return lines;
  }
}

function renderFunction(f: FunctionDefinition): string[] {
  const lines = comment(f.description, '');
  const params = isSchema(f.parameters) ? f.parameters : {};
  if (isSchema(params.properties) && Object.keys(params.properties).length > 0) {
    lines.push(`type ${f.name} = (_: {`, ...new Renderer(params).properties(params, '', 0), '}) => any;');
  } else {
    lines.push(`type ${f.name} = () => any;`);
  }
  return lines;
}

export function renderFunctionNamespace(functions: readonly FunctionDefinition[]): string {
  const lines = ['namespace functions {', ''];
  for (const f of functions) lines.push(...renderFunction(f), '');
  lines.push('} // namespace functions');
  return lines.join('\n');
}
