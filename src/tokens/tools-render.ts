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

type Schema = Record<string, unknown>;

// Schemas from pydantic and zod use local `$ref`s; resolving them deeper than this would only
// follow a recursive type round and round.
const MAX_REF_DEPTH = 4;

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

  type(schema: unknown, indent: string, depth: number): string {
    if (!isSchema(schema)) return 'any';
    if (typeof schema.$ref === 'string') {
      const target = depth < MAX_REF_DEPTH ? this.resolve(schema.$ref) : undefined;
      return target ? this.type(target, indent, depth + 1) : 'any';
    }
    if ('const' in schema) return JSON.stringify(schema.const);
    if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
    const union = schema.anyOf ?? schema.oneOf;
    if (Array.isArray(union)) return union.map((s) => this.type(s, indent, depth)).join(' | ');
    if (Array.isArray(schema.type)) return schema.type.map((t) => this.type({ ...schema, type: t }, indent, depth)).join(' | ');
    switch (schema.type) {
      case 'string':
      case 'boolean':
      case 'null':
      case 'number':
        return schema.type;
      case 'integer':
        return 'number';
      case 'array':
        return `${this.type(schema.items, indent, depth)}[]`;
      case 'object':
        return isSchema(schema.properties) && Object.keys(schema.properties).length > 0
          ? ['{', ...this.properties(schema, `${indent}  `, depth), `${indent}}`].join('\n')
          : 'object';
      default:
        return 'any';
    }
  }

  properties(schema: Schema, indent: string, depth: number): string[] {
    const required = Array.isArray(schema.required) ? schema.required : [];
    const lines: string[] = [];
    for (const [name, prop] of Object.entries(schema.properties as Schema)) {
      const p = isSchema(prop) ? prop : {};
      lines.push(...comment(p.description, indent));
      const optional = required.includes(name) ? '' : '?';
      const fallback = 'default' in p ? ` // default: ${JSON.stringify(p.default)}` : '';
      lines.push(`${indent}${name}${optional}: ${this.type(p, indent, depth)},${fallback}`);
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
