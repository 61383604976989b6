// @ts-check
// `npm start`'s first step: builds dist/ only when it is missing or older than what it is built
// from (`npm ci` already built it in `prepare`), so that starting recap does not run tsc each time.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const SOURCES = ['src', 'package.json', 'tsconfig.json', 'tsconfig.build.json'];

/** The newest modification time under `path` (a file or a folder), ms; 0 when it is missing. */
function newest(path) {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let max = stat.mtimeMs;
  for (const name of readdirSync(path)) max = Math.max(max, newest(join(path, name)));
  return max;
}

const built = newest(join(ROOT, 'dist', 'cli.js'));
const source = Math.max(...SOURCES.map((p) => newest(join(ROOT, p))));
if (built === 0 || built < source) {
  process.stderr.write(built === 0 ? 'dist/ is missing: building it (npm run build)\n' : 'src/ changed since dist/ was built: building it again (npm run build)\n');
  const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
  process.exit(build.status ?? 1);
}
