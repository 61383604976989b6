import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

// The import graph's rules (docs/design.md, "Where each concern lives"), checked by `npm run lint`:
// no import circle between folders, no circle of more than two files, and the engine
// (src/compaction/) takes nothing from outside it but types and a few leaf utilities. Imports are
// read and resolved by the TypeScript compiler; tests and shared test suites (*.test.ts, *.case.ts)
// are not part of the graph.

export interface Import {
  /** The imported file, relative to the root, with `/` separators. */
  to: string;
  /** `import type …`, or every name it takes a type: nothing of it exists at run time. */
  typeOnly: boolean;
}

/** Each source file (relative to the root) and what it imports from the same tree. */
export type ImportGraph = Map<string, Import[]>;

export interface Rules {
  /** A folder whose files may import from outside it only types and `neutral` files. */
  isolated?: { folder: string; neutral: readonly string[] };
}

/** What the engine may use at run time besides its own files: leaf utilities that import nothing of recap's. */
export const RECAP_RULES: Rules = {
  isolated: {
    folder: 'src/compaction',
    neutral: [
      // Cooperative slicing of long loops (generators of steps); no recap import.
      'src/slicing/slicer.ts',
      // A stable sort in steps; imports only the slicer.
      'src/slicing/sort-steps.ts',
      // JSON text of any depth without recursion (a client's tool arguments); imports only the slicing type.
      'src/body/stringify.ts',
    ],
  },
};

const SOURCE = /\.(ts|mts)$/;
const NOT_GRAPH = /\.(test|case)\.ts$|\.d\.ts$/;

function sourceFiles(root: string, dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...sourceFiles(root, path));
    else if (SOURCE.test(entry.name) && !NOT_GRAPH.test(entry.name)) out.push(path);
  }
  return out;
}

function isTypeOnly(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(node)) return node.isTypeOnly;
  const clause = node.importClause;
  if (!clause) return false;
  if (clause.isTypeOnly) return true;
  if (clause.name) return false;
  const bindings = clause.namedBindings;
  return bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly);
}

function specifiers(source: ts.SourceFile): { spec: string; typeOnly: boolean }[] {
  const out: { spec: string; typeOnly: boolean }[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      out.push({ spec: node.moduleSpecifier.text, typeOnly: isTypeOnly(node) });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
      out.push({ spec: node.arguments[0].text, typeOnly: false });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** Reads the imports of every source file under `root/dir`, resolved as the compiler resolves them. */
export function readImportGraph(root: string, dir = 'src'): ImportGraph {
  const options: ts.CompilerOptions = { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, allowJs: false };
  const graph: ImportGraph = new Map();
  const files = sourceFiles(root, dir);
  const known = new Set(files);
  for (const file of files) {
    const abs = join(root, file);
    const source = ts.createSourceFile(abs, readFileSync(abs, 'utf8'), ts.ScriptTarget.ES2022, false);
    const imports: Import[] = [];
    for (const { spec, typeOnly } of specifiers(source)) {
      const resolved = ts.resolveModuleName(spec, abs, options, ts.sys).resolvedModule;
      if (!resolved || resolved.isExternalLibraryImport) continue;
      const to = relative(root, resolved.resolvedFileName).split(sep).join('/');
      if (known.has(to)) imports.push({ to, typeOnly });
    }
    graph.set(file, imports);
  }
  return graph;
}

/** Strongly connected components of more than one node (Tarjan), each in a stable order. */
export function circles(edges: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const connect = (v: string) => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) out.push(component.sort());
  };
  for (const v of [...edges.keys()].sort()) if (!index.has(v)) connect(v);
  return out;
}

// A folder is one below the top of the tree, with its subfolders (src/wire/ holds wire/chat/ and
// wire/responses/); a file at the top (src/app.ts, src/errors.ts) stands for itself.
function folderOf(file: string): string {
  const parts = file.split('/');
  return parts.length <= 2 ? file : parts.slice(0, 2).join('/');
}

/** What breaks the rules, one line each (empty: the graph is sound). */
export function importProblems(graph: ImportGraph, rules: Rules = {}): string[] {
  const problems: string[] = [];
  const files = new Map<string, Set<string>>();
  const folders = new Map<string, Set<string>>();
  for (const [file, imports] of graph) {
    files.set(file, new Set(imports.map((i) => i.to)));
    const from = folderOf(file);
    if (!folders.has(from)) folders.set(from, new Set());
    for (const { to } of imports) if (folderOf(to) !== from) folders.get(from)!.add(folderOf(to));
  }
  for (const component of circles(folders)) {
    const inside = new Set(component);
    // One example import per pair of folders that ties the circle.
    const ties = new Map<string, string>();
    for (const [file, imports] of graph) {
      const from = folderOf(file);
      if (!inside.has(from)) continue;
      for (const { to } of imports) {
        const pair = `${from} -> ${folderOf(to)}`;
        if (inside.has(folderOf(to)) && folderOf(to) !== from && !ties.has(pair)) ties.set(pair, `${pair} (${file} -> ${to})`);
      }
    }
    problems.push(`import circle between folders ${component.join(', ')}: ${[...ties.values()].join('; ')}`);
  }
  for (const component of circles(files)) {
    if (component.length > 2) problems.push(`import circle of ${component.length} files: ${component.join(', ')}`);
  }
  const isolated = rules.isolated;
  if (isolated) {
    const inFolder = (file: string) => file.startsWith(`${isolated.folder}/`);
    for (const [file, imports] of graph) {
      if (!inFolder(file)) continue;
      for (const i of imports) {
        if (!inFolder(i.to) && !i.typeOnly && !isolated.neutral.includes(i.to)) problems.push(`${file} imports ${i.to}: ${isolated.folder}/ takes only types from outside it`);
      }
    }
  }
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const problems = importProblems(readImportGraph(root, process.argv[2] ?? 'src'), RECAP_RULES);
  for (const p of problems) console.error(p);
  if (problems.length > 0) {
    console.error(`import graph: ${problems.length} problem(s)`);
    process.exit(1);
  }
  console.log('import graph: no circle between folders, none of more than 2 files, compaction/ isolated');
}
