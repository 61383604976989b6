import { Writable } from 'node:stream';
import OpenAI from 'openai';
import { type Config, parseConfig } from '../../src/config/config.js';
import { type FakeUpstream, type FakeUpstreamOptions, startFakeUpstream } from '../../src/dev/fake-upstream.js';
import { type RunningRecap, startRecap } from '../../src/main.js';
import { createLogger } from '../../src/observability/logger.js';

export const TEST_SECRET = 'test-secret-0123456789abcdef';

/** A log sink the tests can read (and grep for secrets). */
export class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _enc: string, cb: () => void) {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    cb();
  }
  get text(): string {
    return this.lines.join('\n');
  }
}

export const SUMMARIZER = 'gpt-test-summarizer';

/**
 * `gpt-test-small`: a 3,000-token context window (budget 2,700) that a test conversation of
 * `prose()` turns crosses in about 20 turns, summarized by SUMMARIZER on the fake upstream.
 */
export function smallModel(compaction: Record<string, unknown> = {}, window = { context_window: 3000, max_output_tokens: 300 }): ModelOptions {
  return { match: 'gpt-test-small', ...window, compaction: { strategy: 'summarize', summarizer: { model: SUMMARIZER }, summary_max_tokens: 250, ...compaction } };
}

export interface ModelOptions {
  match?: string;
  context_window?: number;
  max_output_tokens?: number;
  encoding?: string;
  compaction?: Record<string, unknown>;
  recall?: Record<string, unknown>;
  pricing?: Record<string, number>;
}

/** A config pointing at the fake upstream; YAML-equivalent JSON through the real validation. */
export interface HarnessConfigOptions {
  models?: ModelOptions[];
  /** Top-level config sections (server, background, ...). */
  extra?: Record<string, unknown>;
  /** Extra keys of the fake upstream's entry (api_key, timeouts, ...). */
  upstream?: Record<string, unknown>;
  apiKey?: string;
  storeUrl?: string | null;
}

export function testConfig(fake: FakeUpstream, opts: HarnessConfigOptions = {}): Config {
  const models = (opts.models ?? [{}]).map((m) => ({
    match: 'gpt-test*',
    upstream: 'fake',
    context_window: 128000,
    max_output_tokens: 4096,
    encoding: 'o200k_base',
    ...m,
  }));
  const raw = {
    server: { log_level: 'info', secret: TEST_SECRET, ...((opts.extra?.server as object) ?? {}) },
    upstreams: { fake: { base_url: fake.url, ...(opts.apiKey ? { api_key: opts.apiKey } : {}), ...(opts.upstream ?? {}) } },
    models,
    ...(opts.storeUrl ? { store: { url: opts.storeUrl, key_prefix: `t${Date.now()}${Math.random().toString(36).slice(2, 8)}` } } : {}),
    ...Object.fromEntries(Object.entries(opts.extra ?? {}).filter(([k]) => k !== 'server')),
  };
  return parseConfig(JSON.stringify(raw), 'test-config.json', {});
}

export interface Harness {
  fake: FakeUpstream;
  recap: RunningRecap;
  logs: LogCapture;
  client(opts?: { apiKey?: string; conversation?: string }): OpenAI;
  close(): Promise<void>;
}

/** recap on the config `makeConfig` gives, logging into `logs`; a config or start-up failure closes `fake` first, so it is never left listening. */
export async function startRecapBeside(fake: { close(): Promise<void> }, makeConfig: () => Config, logs: LogCapture): Promise<RunningRecap> {
  try {
    const config = makeConfig();
    return await startRecap(config, { port: 0, host: '127.0.0.1', logger: createLogger(config.server.log_level, logs) });
  } catch (err) {
    await fake.close();
    throw err;
  }
}

export async function startHarness(opts: HarnessConfigOptions & { fake?: FakeUpstreamOptions } = {}): Promise<Harness> {
  const fake = await startFakeUpstream(opts.fake);
  const logs = new LogCapture();
  const recap = await startRecapBeside(fake, () => testConfig(fake, opts), logs);
  return {
    fake,
    recap,
    logs,
    client: (c = {}) =>
      new OpenAI({
        baseURL: `${recap.url}/v1`,
        apiKey: c.apiKey ?? 'sk-test-key',
        maxRetries: 0,
        defaultHeaders: c.conversation ? { 'x-conversation-id': c.conversation } : {},
      }),
    async close() {
      await recap.close();
      await fake.close();
    },
  };
}
