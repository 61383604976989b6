import { type FormData, Request, Response } from 'undici';
import { errors } from '../errors.js';
import { isModelKey } from './named-models.js';

// A multipart/form-data body (a file upload, an audio transcription) of a client restricted by
// `models`. Multipart parsers disagree on odd part headers (a `name*=` parameter next to `name=`,
// two Content-Disposition headers, a part's Content-Transfer-Encoding, a JSON document around the
// form as its preamble and epilogue), so the bytes the client sent may name one model to recap and
// another to the upstream. recap reads the form as the WHATWG multipart/form-data parser does
// (undici's) and forwards the form as it read it, encoded anew: the upstream then reads exactly
// recap's reading, parts, file names, types and bytes alike.

export interface ReadForm {
  bytes: Buffer;
  /** The content type of `bytes`, with the boundary they use. */
  contentType: string;
  /** The `model` field's value, when the form has one. */
  model?: string;
}

export async function readForm(raw: Buffer, contentType: string): Promise<ReadForm> {
  let form: FormData;
  try {
    form = await new Response(raw, { headers: { 'content-type': contentType } }).formData();
  } catch (err) {
    throw errors.modelUnverifiable(`the multipart form does not parse: ${(err as Error).message}`);
  }
  const models = [...form.entries()].filter(([name]) => isModelKey(name));
  if (models.length > 1) throw errors.invalidRequest('`model` is given more than once in the form.', 'model');
  const value = models[0]?.[1];
  if (value !== undefined && typeof value !== 'string') throw errors.modelUnverifiable('the form’s `model` is a file');
  const encoded = new Request('http://recap.invalid/', { method: 'POST', body: form });
  return { bytes: Buffer.from(await encoded.arrayBuffer()), contentType: encoded.headers.get('content-type')!, ...(value === undefined ? {} : { model: value }) };
}
