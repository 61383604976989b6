import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../src/dev/fake-anthropic.js';
import { type AnthropicHarness, startAnthropicHarness } from './helpers/anthropic-harness.js';

// The real Claude Code CLI (@anthropic-ai/claude-code) with ANTHROPIC_BASE_URL at recap and the
// fake Anthropic upstream behind it: `claude -p` on a task where the fake, playing the model, asks
// for Read and Bash tool uses that Claude Code really runs on files of a scratch project, until
// recap has compacted the session more than once. Claude Code's own traffic (update checks,
// telemetry) is turned off, and it runs with a throwaway HOME.

const run = promisify(execFile);
const CLAUDE = join(process.cwd(), 'node_modules/.bin/claude');
const STEPS = 24;
const WINDOW = 40_000;

let h: AnthropicHarness;
let project: string;
let home: string;

/** The fake model: one Read or Bash per step (with thinking), then its answer. */
function model(req: RecordedRequest) {
  const messages: { role: string; content: unknown }[] = req.json?.messages ?? [];
  if (!Array.isArray(req.json?.tools) || req.json.tools.length === 0) return { text: 'OK' };
  const last = JSON.stringify(messages.at(-1)?.content ?? '');
  const done = Number((last.match(/notes-(\d+)\.txt/) ?? [])[1] ?? 0);
  const n = done + 1;
  if (n > STEPS) return { thinking: 'Every file is read.', text: `All ${STEPS} notes read. The release code is REL-${STEPS * 7}.` };
  const file = join(project, `notes-${n}.txt`);
  const use =
    n % 3 === 0
      ? { name: 'Bash', input: { command: `wc -c ${file} && head -c 3000 ${file}`, description: `Size of notes-${n}.txt` } }
      : { name: 'Read', input: { file_path: file } };
  return { thinking: `Step ${n}: read notes-${n}.txt next.`, text: `Reading notes ${n}.`, toolUses: [use] };
}

beforeAll(async () => {
  project = mkdtempSync(join(tmpdir(), 'recap-cc-project-'));
  home = mkdtempSync(join(tmpdir(), 'recap-cc-home-'));
  for (let n = 1; n <= STEPS; n++) {
    const lines = Array.from({ length: 60 }, (_, i) => `notes-${n}.txt line ${i}: the build step ${n}.${i} passed with checksum ${(n * 7919 + i * 31).toString(16)}`);
    writeFileSync(join(project, `notes-${n}.txt`), `${lines.join('\n')}\n`);
  }
  h = await startAnthropicHarness({
    model: {
      match: 'claude-*',
      context_window: WINDOW,
      compaction: { strategy: 'summarize', summarizer: { model: 'claude-test-haiku', upstream: 'anthropic' }, summary_max_tokens: 600, trigger_ratio: 0.9 },
    },
    extra: { server: { conversation_header: ['x-conversation-id', 'x-claude-code-session-id'] } },
    fake: { contextWindow: WINDOW },
  });
  h.fake.setDefault(model);
});
afterAll(async () => {
  await h?.close();
  rmSync(project, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

describe('Claude Code through recap', () => {
  it('runs a multi-step Read/Bash task that recap compacts at least twice, and exits 0', async () => {
    const { stdout } = await run(
      CLAUDE,
      ['-p', 'Read every notes file in this directory, one at a time, and tell me the release code.', '--allowedTools', 'Read,Bash', '--model', 'claude-sonnet-4-5'],
      {
        cwd: project,
        timeout: 120_000,
        env: {
          PATH: process.env.PATH,
          HOME: home,
          ANTHROPIC_BASE_URL: h.recap.url,
          ANTHROPIC_API_KEY: 'sk-ant-claude-code-test',
          CLAUDE_CODE_MAX_OUTPUT_TOKENS: '4096',
          DISABLE_TELEMETRY: '1',
          DISABLE_AUTOUPDATER: '1',
          DISABLE_ERROR_REPORTING: '1',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        },
      },
    );
    expect(stdout).toContain(`REL-${STEPS * 7}`);
    expect(h.fake.refusals()).toEqual([]);
    const main = h.fake.messagesRequests().filter((r) => Array.isArray(r.json?.tools) && r.json.tools.length > 0);
    expect(main.length).toBeGreaterThan(STEPS);
    for (const r of main) expect(h.fake.countOf(r)!.total + r.json.max_tokens).toBeLessThanOrEqual(WINDOW);
    const withSummary = main.filter((r) => JSON.stringify(r.json.messages[0]).includes('[recap:summary v1]'));
    expect(withSummary.length).toBeGreaterThan(0);
    expect(h.fake.summarizerRequests().length).toBeGreaterThanOrEqual(2);
    // The prompt cache holds across compactions: recap changes only messages, so every request
    // whose tools are those of the request before it (recap_recall, once offered, is appended once)
    // reads at least Claude Code's cached tools and system prompt.
    const sameTools = main.filter((r, i) => i > 0 && JSON.stringify(r.json.tools) === JSON.stringify(main[i - 1]!.json.tools));
    expect(sameTools.length).toBeGreaterThan(STEPS - 3);
    for (const r of sameTools) expect(h.fake.countOf(r)!.cacheRead).toBeGreaterThan(0);
    // The session header named the conversation: one conversation, its id Claude Code's own.
    const session = String(main[0]!.headers['x-claude-code-session-id']);
    const listed = await fetch(`${h.recap.url}/recap/v1/conversations`, { headers: { 'x-api-key': 'sk-ant-claude-code-test' } });
    const body = (await listed.json()) as { conversations: { id: string; route: string }[] };
    expect(body.conversations.map((c) => [c.id, c.route])).toEqual([[session, 'messages']]);
    console.log(
      JSON.stringify({
        requests: main.length,
        summaries: h.fake.summarizerRequests().length,
        withSummary: withSummary.length,
        maxTokens: Math.max(...main.map((r) => h.fake.countOf(r)!.total)),
      }),
    );
  }, 150_000);
});
