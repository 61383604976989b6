// The fake OpenAI upstream for the overhead bench, in its own process: no latency, and it keeps
// only the last request (the dev CLI keeps 1000, and 1000 bodies of 400 KB would make the
// upstream's garbage collector part of every figure).
//   node --import tsx bench/overhead-upstream.ts   (prints http://127.0.0.1:PORT/v1)
import { startFakeUpstream } from '../src/dev/fake-upstream.js';

const fake = await startFakeUpstream({ host: '127.0.0.1', maxRecorded: 1 });
process.stdout.write(`${fake.url}\n`);
process.once('SIGTERM', () => void fake.close().then(() => process.exit(0)));
