// The fake upstream of the hardening bench, in its own process so that its own work on the big
// bodies does not count as recap's: keeps only the last request, plays the summarizer.
//   node --import tsx bench/hardening-upstream.ts   (prints http://127.0.0.1:PORT/v1)
import { startFakeUpstream } from '../src/dev/fake-upstream.js';

const fake = await startFakeUpstream({
  host: '127.0.0.1',
  maxRecorded: 1,
  summarizerModel: 'bench-summarizer',
  // The fake's default usage figure stringifies the messages; a size-based one is enough here.
  promptTokens: (r) => Math.ceil(r.body.length / 4),
});
process.stdout.write(`${fake.url}\n`);
process.once('SIGTERM', () => void fake.close().then(() => process.exit(0)));
