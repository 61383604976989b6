import { parseJsonBody } from './json-body.js';
import { arrayElements } from './scan.js';

/**
 * A JSON object's bytes with its top-level array `key` cut after its first `keep` elements and
 * `elementJson` appended: everything up to the end of the last element kept is the body's own
 * bytes, so a provider that caches the prompt's prefix finds it as it was sent.
 */
export function withArrayCut(raw: Buffer, key: string, keep: number, elementJson: string): { bytes: Buffer; value: Record<string, unknown> } {
  const body = parseJsonBody(raw);
  const member = body.members?.find((m) => m.key === key);
  if (!member) throw new TypeError(`the body has no \`${key}\` to cut`);
  const spans = arrayElements(raw, member.value.start).items;
  if (keep < 1 || keep > spans.length) throw new RangeError(`cannot keep ${keep} of ${spans.length} elements`);
  const bytes = Buffer.concat([raw.subarray(0, spans[keep - 1]!.end), Buffer.from(`,${elementJson}`), raw.subarray(member.value.end - 1)]);
  return { bytes, value: body.value as Record<string, unknown> };
}
