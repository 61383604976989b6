// recap compiled to JavaScript the way `npm run build` does, but into a temp folder, so that the
// startup figure is that of `node dist/cli.js` and not of tsx compiling TypeScript on the fly.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './overhead-processes.js';

const OUT_DIR = join(tmpdir(), `recap-bench-dist-${process.pid}`);

/** Returns the compiled cli.js; throws when tsc produced none within two minutes. */
export async function buildRecap(): Promise<string> {
  await rm(OUT_DIR, { recursive: true, force: true });
  await mkdir(OUT_DIR, { recursive: true });
  // The compiled files import recap's dependencies by bare name; Node looks for them upward.
  await symlink(join(REPO_ROOT, 'node_modules'), join(OUT_DIR, 'node_modules'), 'dir');
  const tsc = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  try {
    await promisify(execFile)(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', OUT_DIR], { cwd: REPO_ROOT, timeout: 120_000 });
  } catch (err) {
    // tsc still writes JavaScript when another change in the tree does not type-check.
    if (!existsSync(join(OUT_DIR, 'cli.js'))) throw err;
  }
  return join(OUT_DIR, 'cli.js');
}

export async function removeBuild(): Promise<void> {
  await rm(OUT_DIR, { recursive: true, force: true });
}
