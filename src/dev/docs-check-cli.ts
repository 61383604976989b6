import { fileURLToPath } from 'node:url';
import { configSchema } from '../config/schema.js';
import { errors } from '../errors.js';
import { checkDocs } from './docs-check.js';

// `npm run check:docs`: the repository's README.md, CHANGELOG.md and docs/*.md against their links,
// the config schema and recap's error codes. Prints each problem and exits 1, or one line and 0.

const root = fileURLToPath(new URL('../..', import.meta.url));
// Every factory of `errors` with placeholder arguments: the code and status do not depend on them.
const errorCodes = Object.values(errors).map((make) => {
  const err = (make as (...args: string[]) => { code: string; status: number })('x', 'x');
  return { code: err.code, status: err.status };
});
const problems = checkDocs(root, { configSchema, errorCodes });
for (const problem of problems) console.error(problem);
if (problems.length > 0) {
  console.error(`check:docs: ${problems.length} problem${problems.length === 1 ? '' : 's'}`);
  process.exit(1);
}
console.log('check:docs: every link resolves, every config key and error code is documented');
