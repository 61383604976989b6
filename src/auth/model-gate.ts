import type { IncomingMessage } from 'node:http';
import { errors } from '../errors.js';
import { readBody } from '../http/read-body.js';
import { type Caller, mayUse } from './caller.js';

// `clients[].models` on the pass-through routes (responses, completions, embeddings, …), whose
// bodies recap otherwise streams on unread. For a client restricted to some models, a JSON body is
// read (bounded by server.body_limit_bytes) and its `model` checked before anything is forwarded;
// the bytes read are then forwarded as they came. Bodies in other formats (file uploads, audio
// forms) carry no JSON `model` and pass unread, as does every body of an unrestricted caller.

const UNREAD = /^(multipart\/|application\/octet-stream)/i;

/** The body to forward instead of the request stream, or undefined to stream it as usual. */
export async function checkModelOfBody(req: IncomingMessage, caller: Caller, limit: number): Promise<Buffer | undefined> {
  if (caller.kind !== 'client' || !caller.client.restricted || req.method === 'GET' || req.method === 'HEAD') return undefined;
  if (UNREAD.test(req.headers['content-type'] ?? '')) return undefined;
  const body = await readBody(req, limit);
  const model = modelNamedIn(body);
  if (model !== undefined && !mayUse(caller, model)) throw errors.modelNotAllowed(model);
  return body;
}

function modelNamedIn(body: Buffer): string | undefined {
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    const model = parsed !== null && typeof parsed === 'object' ? (parsed as { model?: unknown }).model : undefined;
    return typeof model === 'string' ? model : undefined;
  } catch {
    // Not JSON: the upstream judges it (and recap forwards it, as it would have).
    return undefined;
  }
}
