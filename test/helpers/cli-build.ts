import { cpSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

// The recap processes the tests start (the CLI, `serve` replicas, their workers) run the source
// transpiled to plain JavaScript once per run, not through tsx: tsx's loader hooks compile and
// resolve every module again in each process, which doubled a recap's start-up (~3 s of CPU
// against ~1.4 s), and the suite starts a hundred of them. A transpile, like tsx's own (esbuild,
// no type check); `npm run typecheck` checks the types. Laid out as `dist/` is, beside `src/`, so
// that what the code finds relative to itself (the dashboard's files, package.json) is found.

const ROOT = join(import.meta.dirname, '..', '..');
const OUT = join(ROOT, '.test-build');

/** The CLI's entry point in the tests' build. */
export const CLI = join(OUT, 'cli.js');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return /(?<!\.test|\.case|\.d)\.ts$/.test(e.name) ? [path] : [];
  });
}

/** Transpiles src/ into the tests' build, replacing what an earlier run left there. */
export async function buildCli(): Promise<void> {
  rmSync(OUT, { recursive: true, force: true });
  const src = join(ROOT, 'src');
  await build({
    entryPoints: sources(src),
    outdir: OUT,
    outbase: src,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    tsconfig: join(ROOT, 'tsconfig.json'),
    logLevel: 'error',
  });
  cpSync(join(src, 'ui', 'web'), join(OUT, 'ui', 'web'), { recursive: true });
}
