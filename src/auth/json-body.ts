import { isUtf8 } from 'node:buffer';
import { errors, RecapError } from '../errors.js';
import { parseJsonBody } from '../body/json-body.js';
import { isModelKey, namedModels } from './named-models.js';

// A body that is not a form, of a client restricted by `models`: read as JSON whatever its declared
// type, because upstreams read it so (Python servers call json.loads on the bytes of
// application/octet-stream, text/plain or a missing type; json.loads also decodes a byte-order
// mark, UTF-16 and UTF-32). recap can read it with certainty only when every such reading is its
// own: UTF-8 without a byte-order mark, strict JSON (no NaN), `model` given at most once in any
// letter case and, when given, a string.

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** The models the body names (its `model`, and every nested one); throws when recap cannot be sure. */
export function modelsOfJson(raw: Buffer, charset: string | undefined): string[] {
  if (charset !== undefined && charset.toLowerCase() !== 'utf-8') throw errors.modelUnverifiable(`the body is declared as ${charset}, not UTF-8`);
  if (raw.subarray(0, 3).equals(UTF8_BOM)) throw errors.modelUnverifiable('the body starts with a byte-order mark');
  if (!isUtf8(raw)) throw errors.modelUnverifiable('the body is not UTF-8 text');
  let members: ReturnType<typeof parseJsonBody>;
  try {
    members = parseJsonBody(raw);
  } catch (err) {
    if (err instanceof RecapError) throw errors.modelUnverifiable('the body is not JSON');
    throw err;
  }
  const top = (members.members ?? []).filter((m) => isModelKey(m.key));
  if (top.length > 1) throw errors.invalidRequest('`model` is given more than once in the request body.', 'model');
  const value = top[0] && (members.value as Record<string, unknown>)[top[0].key];
  if (top.length === 1 && typeof value !== 'string') throw errors.modelUnverifiable('its `model` is not a string');
  return namedModels(members.value);
}

/** The `model` entries of an application/x-www-form-urlencoded reading of the body. */
export function modelsOfUrlEncoded(raw: Buffer): string[] {
  const models = [...new URLSearchParams(raw.toString('utf8'))].filter(([key]) => isModelKey(key)).map(([, value]) => value);
  if (models.length > 1) throw errors.invalidRequest('`model` is given more than once in the form.', 'model');
  return models;
}
