import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { overBudgetHistory } from './helpers/conversation.js';
import { loadConfig, parseConfig } from '../src/config/config.js';
import { SESSION_HEADERS } from '../src/config/schema.js';
import { type Harness, startHarness, SUMMARIZER, smallModel } from './helpers/harness.js';

// Agents that already send a session header of their own (opencode's x-session-id, the Codex
// CLI's session_id) work unchanged: `server.conversation_header` takes a list, tried in order. The
// first name is recap's own and never reaches the upstream; the clients' own headers after it are
// forwarded as they came (an upstream may use them, for prompt caching say).

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    fake: { summarizerModel: SUMMARIZER },
    extra: { background: { enabled: false }, server: { conversation_header: ['x-conversation-id', 'x-session-id', 'session_id'] } },
    models: [smallModel()],
  });
});
afterAll(async () => h?.close());

const client = (headers: Record<string, string>) => new OpenAI({ baseURL: `${h.recap.url}/v1`, apiKey: 'sk-test-key', maxRetries: 0, defaultHeaders: headers });
const action = async (headers: Record<string, string>) =>
  (await client(headers).chat.completions.create({ model: 'gpt-test-small', messages: overBudgetHistory() }).withResponse()).response.headers.get('x-recap-action');

describe('a list of conversation headers', () => {
  it("names the conversation by a client's own session header, which is forwarded, while recap's own is not", async () => {
    expect(await action({ 'x-session-id': 'ses_opencode_1' })).toBe('compacted');
    expect(await action({ 'x-session-id': 'ses_opencode_1' })).toBe('reused');
    expect(h.fake.chatRequests().at(-1)!.headers['x-session-id']).toBe('ses_opencode_1');
    // Another session of the same opening is another conversation.
    expect(await action({ 'x-session-id': 'ses_opencode_2' })).toBe('compacted');

    expect(await action({ 'x-conversation-id': 'mine', session_id: 'codex-1' })).toBe('compacted');
    const sent = h.fake.chatRequests().at(-1)!.headers;
    expect(sent['x-conversation-id']).toBeUndefined();
    expect(sent.session_id).toBe('codex-1');
    // The first name present wins: the same x-conversation-id with another session_id is the same conversation.
    expect(await action({ 'x-conversation-id': 'mine', session_id: 'codex-2' })).toBe('reused');
  });
});

describe('the default list (issue 38)', () => {
  it('is the list config/recap.yaml ships, with the Codex CLI’s session-id and Claude Code’s x-claude-code-session-id', () => {
    const shipped = loadConfig(join(import.meta.dirname, '..', 'config', 'recap.yaml'), {});
    const defaults = parseConfig('upstreams: { a: { base_url: "http://127.0.0.1:1/v1" } }', 'f', {});
    expect(shipped.server.conversation_header).toEqual([...SESSION_HEADERS]);
    expect(defaults.server.conversation_header).toEqual([...SESSION_HEADERS]);
    expect(SESSION_HEADERS).toEqual(expect.arrayContaining(['session-id', 'x-claude-code-session-id', 'session_id', 'x-session-id']));
  });

  it('names a Codex CLI session by its session-id and a Claude Code session by x-claude-code-session-id, without any config', async () => {
    const d = await startHarness({ fake: { summarizerModel: SUMMARIZER }, extra: { background: { enabled: false } }, models: [smallModel()] });
    try {
      const ask = async (headers: Record<string, string>) =>
        (
          await new OpenAI({ baseURL: `${d.recap.url}/v1`, apiKey: 'sk-test-key', maxRetries: 0, defaultHeaders: headers }).chat.completions
            .create({ model: 'gpt-test-small', messages: overBudgetHistory() })
            .withResponse()
        ).response.headers.get('x-recap-action');
      // Codex 0.171 sends session-id and thread-id.
      expect(await ask({ 'session-id': 'codex-session-1', 'thread-id': 't1' })).toBe('compacted');
      expect(await ask({ 'session-id': 'codex-session-1', 'thread-id': 't1' })).toBe('reused');
      expect(d.fake.chatRequests().at(-1)!.headers['session-id']).toBe('codex-session-1');
      expect(await ask({ 'session-id': 'codex-session-2' })).toBe('compacted');
      expect(await ask({ 'x-claude-code-session-id': 'cc-1' })).toBe('compacted');
      expect(await ask({ 'x-claude-code-session-id': 'cc-1' })).toBe('reused');
    } finally {
      await d.close();
    }
  });
});
