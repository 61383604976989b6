import type { IncomingMessage } from 'node:http';
import { MIMEType } from 'node:util';
import { errors } from '../errors.js';
import { readBody } from '../http/read-body.js';
import { type Caller, mayUse } from './caller.js';
import { readForm } from './form-body.js';
import { modelsOfJson, modelsOfUrlEncoded } from './json-body.js';
import { namedModels } from './named-models.js';

// `clients[].models` on the pass-through routes (completions, embeddings, audio, files, …), whose
// bodies recap otherwise streams on unread. A client restricted to some models must not reach
// another on any route, so recap reads the body of each of its requests that has one (bounded by
// server.body_limit_bytes) and forwards only what it read with certainty, refusing the rest with
// 400 `model_unverifiable` before anything is forwarded:
// - a multipart/form-data form is read as the WHATWG parser reads it and forwarded as read
//   (form-body.ts), its `model` one text field;
// - any other body must be UTF-8 JSON (json-body.ts), whatever its declared type; declared as
//   application/x-www-form-urlencoded, its form reading must name only allowed models as well;
// - a compressed body (Content-Encoding) is refused: what the upstream decompresses, recap has not read.
// Every model the body names, its `model` and nested ones, must be allowed (403 otherwise).
// Unrestricted callers' bodies stream on unread.

export interface GatedBody {
  bytes: Buffer;
  /** Replaces the request's Content-Type (a form encoded anew has a boundary of its own). */
  contentType?: string;
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function mediaType(header: string | undefined): MIMEType | undefined {
  if (header === undefined) return undefined;
  try {
    return new MIMEType(header);
  } catch {
    throw errors.modelUnverifiable('its Content-Type does not parse');
  }
}

/** The body to forward instead of the request stream, or undefined to stream it as usual. */
export async function checkModelOfBody(req: IncomingMessage, caller: Caller, limit: number): Promise<GatedBody | undefined> {
  if (caller.kind !== 'client' || !caller.client.restricted || !hasBody(req)) return undefined;
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') throw errors.modelUnverifiable(`the body is sent with Content-Encoding ${encoding}`);
  const type = mediaType(req.headers['content-type']);
  const raw = await readBody(req, limit);
  let gated: GatedBody = { bytes: raw };
  let models: string[];
  if (type?.essence === 'multipart/form-data') {
    const form = await readForm(raw, req.headers['content-type']!);
    gated = { bytes: form.bytes, contentType: form.contentType };
    models = form.model === undefined ? [] : [form.model];
  } else {
    models = modelsOfJson(raw, type?.params.get('charset') ?? undefined);
    if (type?.essence === 'application/x-www-form-urlencoded') models.push(...modelsOfUrlEncoded(raw));
  }
  const forbidden = models.find((m) => !mayUse(caller, m));
  if (forbidden !== undefined) throw errors.modelNotAllowed(forbidden);
  return gated;
}

/**
 * On the compacting routes, whose `model` the route checks: any other model the body names (a
 * Responses image_generation tool's, say) outside its conversation items (`itemsKey`), which
 * name none, must be one the caller may use too.
 */
export function refuseOtherModels(caller: Caller, body: object, itemsKey: string): void {
  if (caller.kind !== 'client' || !caller.client.restricted) return;
  const forbidden = namedModels(body, new Set([itemsKey])).find((m) => !mayUse(caller, m));
  if (forbidden !== undefined) throw errors.modelNotAllowed(forbidden);
}
