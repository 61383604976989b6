#!/usr/bin/env node
// Runs the fake upstream in its own process, for manual trials and benchmarks:
//   node dist/dev/fake-upstream-cli.js --port N [--host H] [--latency MS] [--chunk-delay MS]
//     [--summarizer-model M --summarizer-latency MS --lossy-summarizer]
// Prints the base URL (http://HOST:PORT/v1) on stdout once listening.
import { parseArgs } from 'node:util';
import { startFakeUpstream } from './fake-upstream.js';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    host: { type: 'string' },
    latency: { type: 'string' },
    'chunk-delay': { type: 'string' },
    'summarizer-model': { type: 'string' },
    'summarizer-latency': { type: 'string' },
    'lossy-summarizer': { type: 'boolean', default: false },
  },
});

function wholeNumber(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) {
    process.stderr.write(`--${flag}: expected a whole number, got "${value}"\n`);
    process.exit(2);
  }
  return n;
}

const fake = await startFakeUpstream({
  port: wholeNumber('port', values.port),
  host: values.host,
  latencyMs: wholeNumber('latency', values.latency),
  chunkDelayMs: wholeNumber('chunk-delay', values['chunk-delay']),
  summarizerModel: values['summarizer-model'],
  summarizerLatencyMs: wholeNumber('summarizer-latency', values['summarizer-latency']),
  lossySummarizer: values['lossy-summarizer'],
  // A long benchmark would otherwise keep every request body in memory.
  maxRecorded: 1000,
});
process.stdout.write(`${fake.url}\n`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void fake.close().then(() => process.exit(0)));
}
