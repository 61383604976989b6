import Anthropic from '@anthropic-ai/sdk';
import { type Config, parseConfig } from '../../src/config/config.js';
import { type FakeAnthropic, type FakeAnthropicOptions, startFakeAnthropic } from '../../src/dev/fake-anthropic.js';
import type { RunningRecap } from '../../src/main.js';
import { LogCapture, startRecapBeside, TEST_SECRET } from './harness.js';

// recap in front of the fake Anthropic upstream (src/dev/fake-anthropic.ts), driven by the
// official Anthropic SDK: `claude-test*` models on an `api: anthropic` upstream, summarized by
// ANTHROPIC_SUMMARIZER on the same upstream's /v1/messages.

export const ANTHROPIC_SUMMARIZER = 'claude-test-haiku';

export interface AnthropicHarness {
  fake: FakeAnthropic;
  recap: RunningRecap;
  logs: LogCapture;
  client(opts?: { apiKey?: string; conversation?: string }): Anthropic;
  close(): Promise<void>;
}

export interface AnthropicHarnessOptions {
  /** The model entry's keys over the defaults (a 200k window, summarize). */
  model?: Record<string, unknown>;
  /** Top-level config sections. */
  extra?: Record<string, unknown>;
  /** Extra keys of the fake's upstream entry (api_key, ...). */
  upstream?: Record<string, unknown>;
  fake?: FakeAnthropicOptions;
}

export function anthropicTestConfig(fake: FakeAnthropic, opts: AnthropicHarnessOptions = {}): Config {
  const raw = {
    server: { log_level: 'info', secret: TEST_SECRET, ...((opts.extra?.server as object) ?? {}) },
    upstreams: { anthropic: { base_url: fake.url, api: 'anthropic', ...(opts.upstream ?? {}) } },
    models: [
      {
        match: 'claude-test*',
        upstream: 'anthropic',
        context_window: 200000,
        max_output_tokens: 8192,
        encoding: 'estimate',
        compaction: { strategy: 'summarize', summarizer: { model: ANTHROPIC_SUMMARIZER, upstream: 'anthropic' }, summary_max_tokens: 400 },
        ...opts.model,
      },
    ],
    ...Object.fromEntries(Object.entries(opts.extra ?? {}).filter(([k]) => k !== 'server')),
  };
  return parseConfig(JSON.stringify(raw), 'anthropic-test-config.json', {});
}

export async function startAnthropicHarness(opts: AnthropicHarnessOptions = {}): Promise<AnthropicHarness> {
  const fake = await startFakeAnthropic({ summarizerModel: ANTHROPIC_SUMMARIZER, ...opts.fake });
  const logs = new LogCapture();
  const recap = await startRecapBeside(fake, () => anthropicTestConfig(fake, opts), logs);
  return {
    fake,
    recap,
    logs,
    client: (c = {}) =>
      new Anthropic({ baseURL: recap.url, apiKey: c.apiKey ?? 'sk-ant-test-key', maxRetries: 0, defaultHeaders: c.conversation ? { 'x-conversation-id': c.conversation } : {} }),
    async close() {
      await recap.close();
      await fake.close();
    },
  };
}
