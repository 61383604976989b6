import { describe, expect, it } from 'vitest';
import { createModelResolver, parseConfig } from './config.js';
import { problems } from './problems.case.js';
import { SESSION_HEADERS } from './schema.js';

const base = `
upstreams:
  openai:
    base_url: https://api.openai.com/v1
models:
  - match: gpt-4o*
    upstream: openai
    context_window: 128000
    max_output_tokens: 16384
`;

describe('config', () => {
  it('fills defaults for every omitted key', () => {
    const c = parseConfig(base, 'recap.yaml', {});
    expect(c.server).toMatchObject({ port: 8787, conversation_header: [...SESSION_HEADERS], body_limit_bytes: 32 * 1024 * 1024 });
    expect(c.models[0]!.compaction).toMatchObject({ strategy: 'off', summary_max_tokens: 1024, trigger_ratio: 1, target_ratio: 0.6, prepare_ratio: 0.8 });
    expect(c.store).toMatchObject({ ttl_seconds: 604800 });
    expect(c.store.url).toBeUndefined();
  });

  it('reports one line per problem as file: path.to.key: what is wrong', () => {
    const lines = problems(`
upstreams:
  openai: { base_url: not-a-url, colour: blue }
models:
  - match: x
    upstream: nowhere
    context_window: -5
    max_output_tokens: 10
    compaction: { strategy: summarize, target_ratio: 1.5 }
`);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^recap\.yaml: upstreams\.openai\.base_url: /),
        expect.stringMatching(/^recap\.yaml: upstreams\.openai\.colour: /),
        expect.stringMatching(/^recap\.yaml: models\.0\.context_window: /),
        expect.stringMatching(/^recap\.yaml: models\.0\.compaction\.target_ratio: /),
      ]),
    );
    expect(problems(base.replace('upstream: openai', 'upstream: nowhere'))).toEqual(['recap.yaml: models.0.upstream: no upstream named "nowhere"']);
    expect(problems('upstreams: [')[0]).toMatch(/^recap\.yaml: \(syntax\): /);
  });

  it('interpolates ${VAR} and ${VAR:-default}, and names a missing variable', () => {
    const text = base.replace('base_url: https://api.openai.com/v1', 'base_url: ${BASE:-https://example.test/v1}\n    api_key: ${KEY}');
    expect(parseConfig(text, 'f', { KEY: 'sk-1' }).upstreams.openai!).toMatchObject({ base_url: 'https://example.test/v1', api_key: 'sk-1' });
    expect(problems(text)).toEqual(["recap.yaml: upstreams.openai.api_key: environment variable KEY is not set (in '${KEY}')"]);
  });

  it('says where a YAML syntax error is, in one line that ends in what is wrong (issue 38)', () => {
    expect(problems('server:\n  port: 8787\n  bad: [1, 2\n')).toEqual([
      'recap.yaml: (syntax): line 4, column 1: Flow sequence in block collection must be sufficiently indented and end with a ]',
    ]);
    expect(problems('server:\n  port: 8787\n foo: x\n')).toEqual(['recap.yaml: (syntax): line 3, column 1: All mapping items must start at the same column']);
  });

  it('names an unset ${VAR} once, not again as a missing value (issue 38)', () => {
    expect(problems(base.replace('https://api.openai.com/v1', '${BASE}'))).toEqual(["recap.yaml: upstreams.openai.base_url: environment variable BASE is not set (in '${BASE}')"]);
    expect(problems(base.replace('context_window: 128000', 'context_window: ${WINDOW}'))).toEqual([
      "recap.yaml: models.0.context_window: environment variable WINDOW is not set (in '${WINDOW}')",
    ]);
  });

  it('gives each unknown key its own line, with the key it is likely a typo of (issue 38)', () => {
    expect(problems(`server:\n  prot: 1\n  anonymus: shared\nmodles: []\n${base}`)).toEqual([
      'recap.yaml: server.prot: unknown key (did you mean port?)',
      'recap.yaml: server.anonymus: unknown key (did you mean anonymous?)',
      'recap.yaml: modles: unknown key (did you mean models?)',
    ]);
    expect(problems(base.replace('context_window: 128000', 'context_window: 128000\n    colour: blue'))).toEqual([
      expect.stringMatching(/^recap\.yaml: models\.0\.colour: unknown key \(known here: match, upstream, context_window, /),
    ]);
  });

  it('reads a compaction block without a strategy as off, as documented (issue 38)', () => {
    const compaction = (c: string) => base.replace('max_output_tokens: 16384', `max_output_tokens: 16384\n    compaction: ${c}`);
    expect(parseConfig(compaction('{ trigger_ratio: 0.9 }'), 'f', {}).models[0]!.compaction.strategy).toBe('off');
    // Audit mode needs something to audit: said so, not "needs summarizer.model".
    expect(problems(compaction('{ mode: audit }'))).toEqual([
      'recap.yaml: models.0.compaction.mode: mode audit needs a strategy to audit: set strategy to summarize (with summarizer.model), template or window (unset, compaction is off)',
    ]);
    expect(parseConfig(compaction('{ mode: audit, strategy: window }'), 'f', {}).models[0]!.compaction).toMatchObject({ mode: 'audit', strategy: 'window' });
    expect(problems(compaction('{ summarizer: { model: gpt-4o-mini } }'))).toEqual([
      'recap.yaml: models.0.compaction.strategy: not set, so compaction is off although a summarizer is given: add strategy: summarize',
    ]);
  });

  it('lets REDIS_URL and RECAP_SECRET override the file', () => {
    const c = parseConfig(base, 'f', { REDIS_URL: 'redis://r:6379', RECAP_SECRET: 'a-long-enough-secret-value' });
    expect(c.store.url).toBe('redis://r:6379');
    expect(c.server.secret).toBe('a-long-enough-secret-value');
  });

  it('bounds receiving a request by default and refuses a headers timeout over the request timeout', () => {
    expect(parseConfig(base, 'f', {}).server).toMatchObject({ headers_timeout_ms: 60_000, request_timeout_ms: 300_000 });
    const server = (s: string) => `server: { ${s} }\n${base}`;
    expect(parseConfig(server('request_timeout_ms: 0'), 'f', {}).server.request_timeout_ms).toBe(0);
    expect(problems(server('headers_timeout_ms: 5000, request_timeout_ms: 1000'))).toEqual([
      'recap.yaml: server.headers_timeout_ms: headers_timeout_ms must not exceed request_timeout_ms',
    ]);
    expect(problems(server('headers_timeout_ms: 0'))[0]).toMatch(/^recap\.yaml: server\.headers_timeout_ms: /);
  });

  it('accepts JSON', () => {
    expect(parseConfig(JSON.stringify({ upstreams: { a: { base_url: 'http://127.0.0.1:1/v1' } } }), 'f.json', {}).upstreams.a).toBeDefined();
  });
});

describe('model resolution', () => {
  it('takes the first entry whose exact name or glob matches', () => {
    const entry = (match: string, context_window: number) => ({ match, upstream: 'a', context_window, max_output_tokens: 1 });
    const c = parseConfig(
      JSON.stringify({ upstreams: { a: { base_url: 'http://127.0.0.1:1/v1' } }, models: [entry('gpt-4o*', 128000), entry('gpt-4o-mini', 2), entry('o?-mini', 3)] }),
      'f.json',
      {},
    );
    const resolve = createModelResolver(c.models);
    expect(resolve('gpt-4o-mini')?.context_window).toBe(128000);
    expect(resolve('o3-mini')?.context_window).toBe(3);
    expect(resolve('gpt-4')).toBeUndefined();
  });
});
