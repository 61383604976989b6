import { parseJsonBody } from '../body/json-body.js';
import { arrayElements, type Span } from '../body/scan.js';

// The cut of a forwarded body for a summarizer call on its cached prefix (format.ts
// SharedPrefixWire): everything up to the end of the last item kept is the body's own bytes, so a
// provider that caches the prompt's prefix finds it as it was sent.

export interface CutBody {
  /** The body's bytes with its array `key` cut after `keep` elements and `elementJson` appended. */
  bytes: Buffer;
  /** The body as parsed, for the members a builder looks at. */
  value: Record<string, unknown>;
  /** The spans of the elements kept, in `bytes` (the same as in the forwarded body). */
  kept: Span[];
}

export function cutItems(raw: Buffer, key: string, keep: number, elementJson: string): CutBody {
  const body = parseJsonBody(raw);
  const member = body.members?.find((m) => m.key === key);
  if (!member) throw new TypeError(`the forwarded body has no \`${key}\` to cut`);
  const spans = arrayElements(raw, member.value.start).items;
  if (keep < 1 || keep > spans.length) throw new RangeError(`cannot keep ${keep} of ${spans.length} items`);
  const bytes = Buffer.concat([raw.subarray(0, spans[keep - 1]!.end), Buffer.from(`,${elementJson}`), raw.subarray(member.value.end - 1)]);
  return { bytes, value: body.value as Record<string, unknown>, kept: spans.slice(0, keep) };
}
