import { randomBytes } from 'node:crypto';
import { type Config, parseConfig } from '../config/config.js';

// The demo's recap config, built in code: one small-context model compacted by a summarizer model,
// both served by the local fake upstream, the in-memory store, background preparation on.

export const DEMO_MODEL = 'gpt-demo-small';
export const DEMO_SUMMARIZER = 'gpt-demo-summarizer';
export const DEMO_CONTEXT_WINDOW = 3000;
const DEMO_MAX_OUTPUT = 500;

export function demoConfig(upstreamUrl: string): Config {
  const raw = {
    // A per-run secret keeps the "no secret set" warning out of a demo that stores nothing durable.
    server: { host: '127.0.0.1', port: 0, log_level: 'silent', secret: randomBytes(24).toString('base64url') },
    upstreams: { fake: { base_url: upstreamUrl } },
    models: [
      {
        match: DEMO_MODEL,
        upstream: 'fake',
        context_window: DEMO_CONTEXT_WINDOW,
        max_output_tokens: DEMO_MAX_OUTPUT,
        encoding: 'o200k_base',
        compaction: { strategy: 'summarize', summarizer: { model: DEMO_SUMMARIZER }, summary_max_tokens: 400 },
        // A compacted view keeps 500 tokens free for one recall answer by default: a sixth of this
        // window, which made the turn after each pasted log summarize it inline before its background
        // summary was ready. On a real model's window that room is a small share.
        recall: { answer_room_tokens: 0 },
      },
    ],
    background: { enabled: true },
  };
  // An empty environment: REDIS_URL or RECAP_SECRET from the shell must not change the demo.
  return parseConfig(JSON.stringify(raw), 'demo-config', {});
}
