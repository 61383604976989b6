import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importProblems, RECAP_RULES, readImportGraph } from '../scripts/import-graph.js';

// The import-graph check that `npm run lint` runs, on tiny trees written for each rule: it must
// fail on what it forbids and pass what it allows.

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** A tree of `files` (path → source) under a fresh directory; its problems under the given rules. */
function problemsOf(files: Record<string, string>, rules = {}): string[] {
  const root = mkdtempSync(join(tmpdir(), 'recap-import-graph-'));
  roots.push(root);
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), source);
  }
  return importProblems(readImportGraph(root, 'src'), rules);
}

const isolated = { isolated: { folder: 'src/engine', neutral: ['src/util/leaf.ts'] } };

describe('the import-graph check', () => {
  it('passes a tree whose folders import downward only, with a two-file circle inside one folder', () => {
    expect(
      problemsOf({
        'src/app.ts': "import { a } from './a/a.js';\nexport const app = a;\n",
        'src/a/a.ts': "import { b } from '../b/b.js';\nimport { c } from './c.js';\nexport const a = b + c;\n",
        'src/a/c.ts': "import type { A } from './d.js';\nexport const c = 1;\nexport type C = A;\n",
        'src/a/d.ts': "import type { C } from './c.js';\nexport type A = C | number;\n",
        'src/b/b.ts': 'export const b = 2;\n',
        // Tests and shared suites are not part of the graph.
        'src/b/b.test.ts': "import { a } from '../a/a.js';\nexport const t = a;\n",
      }),
    ).toEqual([]);
  });

  it('fails on a circle between folders, naming an import that ties each pair, type-only imports included', () => {
    const problems = problemsOf({
      'src/json/scan.ts': "import type { Seen } from '../seen/seen.js';\nexport const scan = (s: Seen) => s;\n",
      'src/seen/seen.ts': "import { scan } from '../json/scan.js';\nexport type Seen = number;\nexport const seen = scan;\n",
    });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('import circle between folders src/json, src/seen');
    expect(problems[0]).toContain('src/json/scan.ts -> src/seen/seen.ts');
    expect(problems[0]).toContain('src/seen/seen.ts -> src/json/scan.ts');
  });

  it('counts a folder with its subfolders as one, and a file at the top of the tree as its own', () => {
    expect(
      problemsOf({
        'src/wire/formats.ts': "import { chat } from './chat/format.js';\nexport const formats = [chat];\n",
        'src/wire/format.ts': 'export type Format = string;\n',
        'src/wire/chat/format.ts': "import type { Format } from '../format.js';\nimport { shape } from '../../errors.js';\nexport const chat: Format = shape;\n",
        'src/errors.ts': "export const shape = 'x';\n",
      }),
    ).toEqual([]);
    expect(
      problemsOf({
        'src/wire/chat/format.ts': "import { run } from '../../pipeline/run.js';\nexport const chat = run;\n",
        'src/pipeline/run.ts': "import type { Format } from '../wire/format.js';\nexport const run = 1;\nexport type F = Format;\n",
        'src/wire/format.ts': 'export type Format = string;\n',
      })[0],
    ).toContain('import circle between folders src/pipeline, src/wire');
  });

  it('fails on a circle of three files inside one folder', () => {
    const problems = problemsOf({
      'src/p/a.ts': "import { b } from './b.js';\nexport const a = () => b();\n",
      'src/p/b.ts': "import { c } from './c.js';\nexport const b = () => c();\n",
      'src/p/c.ts': "import { a } from './a.js';\nexport const c = () => a();\n",
    });
    expect(problems).toEqual(['import circle of 3 files: src/p/a.ts, src/p/b.ts, src/p/c.ts']);
  });

  it('lets an isolated folder take types and its neutral files from outside it, nothing else', () => {
    const files = {
      'src/engine/plan.ts':
        "import type { Config } from '../config/config.js';\nimport { type Item, leaf } from '../util/leaf.js';\nimport { other } from '../util/other.js';\nexport const plan = (c: Config, i: Item) => leaf + other + c + i;\n",
      'src/config/config.ts': 'export type Config = number;\n',
      'src/util/leaf.ts': 'export const leaf = 1;\nexport type Item = number;\n',
      'src/util/other.ts': 'export const other = 2;\n',
    };
    expect(problemsOf(files, isolated)).toEqual(['src/engine/plan.ts imports src/util/other.ts: src/engine/ takes only types from outside it']);
    expect(problemsOf(files)).toEqual([]);
  });

  it("holds for recap's own tree", () => {
    expect(importProblems(readImportGraph(join(import.meta.dirname, '..'), 'src'), RECAP_RULES)).toEqual([]);
  });
});
