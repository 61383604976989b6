import { request } from 'node:http';
import { gzipSync } from 'node:zlib';
import { Response } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { overBudgetHistory } from '../helpers/conversation.js';
import { expectOpenAIError } from '../helpers/error-shape.js';
import { type Harness, SUMMARIZER, smallModel, startHarness } from '../helpers/harness.js';

// A client restricted by `models` must not reach any other model, on any route, whatever the
// encoding of its body. Upstreams read bodies more ways than recap's JSON.parse: Python's
// json.loads takes a byte-order mark, UTF-16 and UTF-32, and servers built on it read the bytes of
// application/octet-stream or a form as JSON; Go's encoding/json matches `Model` for `model`;
// multipart parsers disagree on odd part headers. So recap forwards a restricted client's body
// only when every such reading names allowed models: it refuses the rest (400
// model_unverifiable, or 400 for a `model` given twice, or 403) before anything is forwarded, and
// forwards a form as it read it, encoded anew.

const NARROW = 'ck-narrow-8b6d4f2a0c9e7b5d3f1a8c6e4b2d0f9a';
const WIDE = 'ck-wide-4f1a9d2c7e5b3a8f6d0c1e9b7a5d3f2c';
const ALLOWED = 'text-embedding-3-small';
const FORBIDDEN = 'text-embedding-3-large';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    fake: { summarizerModel: SUMMARIZER },
    models: [smallModel(), {}],
    extra: {
      background: { enabled: false },
      clients: [
        { name: 'narrow', key: NARROW, models: [ALLOWED, 'whisper-1', 'gpt-test-small'] },
        { name: 'wide', key: WIDE },
      ],
    },
  });
});
afterAll(async () => h?.close());

interface Sent {
  status: number;
  body: string;
}

/** One request with exactly these bytes and headers (fetch would refuse a GET body, and set its own type). */
function send(target: string, body: Buffer | string, headers: Record<string, string> = {}, method = 'POST', key = NARROW): Promise<Sent> {
  const url = new URL(h.recap.url);
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, method, path: target, headers: { authorization: `Bearer ${key}`, 'content-length': bytes.length, ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(bytes);
  });
}

const json = (model: string) => `{"model":"${model}","input":"hello"}`;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const utf16 = (text: string, bom: boolean) => Buffer.concat([bom ? Buffer.from([0xff, 0xfe]) : Buffer.alloc(0), Buffer.from(text, 'utf16le')]);

/** A multipart form, part by part, as a client may write it. */
function form(boundary: string, parts: { headers: string[]; body: string }[], around: [string, string] = ['', '']): Buffer {
  const text = parts.map((p) => `--${boundary}\r\n${p.headers.join('\r\n')}\r\n\r\n${p.body}\r\n`).join('');
  return Buffer.from(`${around[0]}${text}--${boundary}--\r\n${around[1]}`);
}
const field = (name: string, value: string) => ({ headers: [`Content-Disposition: form-data; name="${name}"`], body: value });
const audio = { headers: ['Content-Disposition: form-data; name="file"; filename="a.wav"', 'Content-Type: audio/wav'], body: 'RIFF-not-really-audio' };
const multipart = (boundary: string) => ({ 'content-type': `multipart/form-data; boundary=${boundary}` });

async function expectRefused(sent: Promise<Sent>, status: number, code: string, param: string | null = 'model'): Promise<void> {
  const before = h.fake.requests.length;
  const res = await sent;
  expect(res.status, res.body).toBe(status);
  expectOpenAIError(res.body, code, param);
  expect(h.fake.requests.length).toBe(before);
}

describe.each(['/v1/embeddings', '/v1/completions'])('a restricted client’s JSON body on %s', (target) => {
  it.each([
    ['with a UTF-8 byte-order mark', Buffer.concat([BOM, Buffer.from(json(FORBIDDEN))]), {}],
    ['with a byte-order mark, naming an allowed model', Buffer.concat([BOM, Buffer.from(json(ALLOWED))]), {}],
    ['in UTF-16 with a byte-order mark', utf16(json(FORBIDDEN), true), {}],
    ['in UTF-16 without one', utf16(json(FORBIDDEN), false), { 'content-type': 'application/json' }],
    ['declared in another charset', Buffer.from(json(ALLOWED)), { 'content-type': 'application/json; charset=utf-7' }],
    ['that is not UTF-8', Buffer.concat([Buffer.from(`{"model":"${ALLOWED}","input":"`), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]), {}],
    ['gzip-compressed', gzipSync(json(FORBIDDEN)), { 'content-type': 'application/json', 'content-encoding': 'gzip' }],
    ['sent as a multipart form it is not', Buffer.from(json(FORBIDDEN)), { 'content-type': 'multipart/form-data' }],
    ['with NaN, which json.loads reads', Buffer.from(`{"model":"${FORBIDDEN}","input":"x","n":NaN}`), {}],
    ['naming its model as an array', Buffer.from(`{"model":["${FORBIDDEN}"],"input":"x"}`), {}],
  ])('%s: 400 model_unverifiable, nothing forwarded', async (_name, body, headers) => {
    await expectRefused(send(target, body, headers), 400, 'model_unverifiable');
  });

  it.each([
    ['twice', `{"model":"${FORBIDDEN}","model":"${ALLOWED}","input":"x"}`],
    ['twice, once escaped', `{"m\\u006fdel":"${FORBIDDEN}","model":"${ALLOWED}","input":"x"}`],
    ['twice, once in capitals (as Go decoders read it)', `{"model":"${ALLOWED}","MODEL":"${FORBIDDEN}","input":"x"}`],
  ])('naming its model %s: 400 invalid_request, nothing forwarded', async (_name, body) => {
    await expectRefused(send(target, body, { 'content-type': 'application/json' }), 400, 'invalid_request');
  });

  it.each([
    ['application/octet-stream', { 'content-type': 'application/octet-stream' }],
    ['text/plain', { 'content-type': 'text/plain' }],
    ['no content type', {}],
  ])('read as JSON when sent as %s: a forbidden model gets 403', async (_name, headers) => {
    await expectRefused(send(target, json(FORBIDDEN), headers), 403, 'model_not_allowed');
  });

  it('read as JSON and as a form when sent url-encoded: a model named in either reading must be allowed', async () => {
    await expectRefused(send(target, json(FORBIDDEN), { 'content-type': 'application/x-www-form-urlencoded' }), 403, 'model_not_allowed');
    const both = `{"model":"${ALLOWED}","&model=${FORBIDDEN}&":1}`;
    await expectRefused(send(target, both, { 'content-type': 'application/x-www-form-urlencoded' }), 403, 'model_not_allowed');
  });

  it('checks a nested model, and a GET with a body', async () => {
    await expectRefused(
      send(target, `{"model":"${ALLOWED}","session":{"type":"realtime","model":"${FORBIDDEN}"}}`, { 'content-type': 'application/json' }),
      403,
      'model_not_allowed',
    );
    await expectRefused(send(target, json(FORBIDDEN), { 'content-type': 'application/json' }, 'GET'), 403, 'model_not_allowed');
  });

  it('forwards an allowed one byte for byte, whatever its declared type', async () => {
    const types: Record<string, string>[] = [{ 'content-type': 'application/json' }, { 'content-type': 'application/octet-stream' }, {}];
    for (const headers of types) {
      const body = `{ "model" : "${ALLOWED}", "input": "caf\\u00e9", "seed": 9007199254740993 }`;
      const res = await send(target, body, headers);
      expect(res.status).toBe(200);
      expect(h.fake.requests.at(-1)!.body).toBe(body);
    }
  });
});

describe('a restricted client’s multipart form', () => {
  const target = '/v1/audio/transcriptions';

  it('naming a forbidden model gets 403; two models or a model that is a file get 400; nothing forwarded', async () => {
    await expectRefused(send(target, form('b1', [audio, field('model', FORBIDDEN)]), multipart('b1')), 403, 'model_not_allowed');
    await expectRefused(send(target, form('b1', [field('model', 'whisper-1'), audio, field('model', FORBIDDEN)]), multipart('b1')), 400, 'invalid_request');
    await expectRefused(send(target, form('b1', [field('Model', FORBIDDEN), field('model', 'whisper-1')]), multipart('b1')), 400, 'invalid_request');
    const asFile = { headers: ['Content-Disposition: form-data; name="model"; filename="m.txt"'], body: FORBIDDEN };
    await expectRefused(send(target, form('b1', [audio, asFile]), multipart('b1')), 400, 'model_unverifiable');
    await expectRefused(send(target, Buffer.from('--b1\r\nnot a form'), multipart('b1')), 400, 'model_unverifiable');
  });

  it('is forwarded as recap read it, so that no other parser of the forwarded bytes finds another model', async () => {
    // A part that parsers disagree on (undici reads `name`, Python's email parameters `name*`),
    // and a JSON document around the form (its preamble and epilogue) naming another model.
    const odd = { headers: [`Content-Disposition: form-data; name*=utf-8''model; name="note"`], body: FORBIDDEN };
    const sent = form('b2', [audio, field('model', 'whisper-1'), odd], [`{"model":"${FORBIDDEN}","pad":"`, '"}']);
    const res = await send(target, sent, multipart('b2'));
    expect(res.status).toBe(200);
    const forwarded = h.fake.requests.at(-1)!;
    expect(forwarded.body).not.toContain('name*');
    expect(forwarded.body).not.toContain('"pad"');
    expect(() => JSON.parse(forwarded.body)).toThrow();
    const entries = [...(await new Response(forwarded.body, { headers: { 'content-type': String(forwarded.headers['content-type']) } }).formData()).entries()];
    expect(entries.map(([name, value]) => [name, typeof value === 'string' ? value : `file ${value.name} ${value.type}`])).toEqual([
      ['file', 'file a.wav audio/wav'],
      ['model', 'whisper-1'],
      ['note', FORBIDDEN],
    ]);
  });

  it('is forwarded with its files intact, a form without a model too', async () => {
    const res = await send(
      '/v1/files',
      form('b3', [
        field('purpose', 'assistants'),
        { headers: ['Content-Disposition: form-data; name="file"; filename="notes.txt"', 'Content-Type: text/plain'], body: 'line 1\nline 2' },
      ]),
      multipart('b3'),
    );
    expect(res.status).toBe(200);
    const forwarded = h.fake.requests.at(-1)!;
    const entries = await new Response(forwarded.body, { headers: { 'content-type': String(forwarded.headers['content-type']) } }).formData();
    expect(entries.get('purpose')).toBe('assistants');
    const file = entries.get('file');
    expect(typeof file === 'object' && file !== null ? await file.text() : file).toBe('line 1\nline 2');
  });
});

describe('the compacting routes', () => {
  it('refuse `model` given twice in any letter case, for every caller', async () => {
    for (const key of [NARROW, WIDE]) {
      const body = JSON.stringify({ model: 'gpt-test-small', messages: [{ role: 'user', content: 'hi' }] }).replace('{', `{"MODEL":"${FORBIDDEN}",`);
      await expectRefused(send('/v1/chat/completions', body, { 'content-type': 'application/json' }, 'POST', key), 400, 'invalid_request');
    }
  });

  it('check the models a restricted client’s body names besides its own, outside the conversation', async () => {
    const tools = [{ type: 'image_generation', model: 'gpt-image-1' }];
    await expectRefused(send('/v1/responses', JSON.stringify({ model: 'gpt-test-small', input: 'draw', tools }), { 'content-type': 'application/json' }), 403, 'model_not_allowed');
    const res = await send(
      '/v1/chat/completions',
      JSON.stringify({ model: 'gpt-test-small', messages: [...overBudgetHistory(), { role: 'user', content: '{"model":"gpt-4o"}' }] }),
      {
        'content-type': 'application/json',
      },
    );
    expect(res.status).toBe(200);
  });
});

describe('an unrestricted client', () => {
  it('has its bodies streamed on unread, whatever they are', async () => {
    const body = Buffer.concat([BOM, Buffer.from(json(FORBIDDEN))]);
    const res = await send('/v1/embeddings', body, { 'content-type': 'application/octet-stream' }, 'POST', WIDE);
    expect(res.status).toBe(200);
    expect(Buffer.from(h.fake.requests.at(-1)!.body)).toEqual(body);
  });
});
