import type { ModelConfig } from '../config/config.js';
import { type Identity, identifyBy } from '../conversation/identify.js';
import type { ParsedRequest, WireFormat } from '../wire/format.js';
import { type Arrival, type RecordRead, readRecord } from './early-record.js';
import { canForwardFirst } from './forward-first.js';
import type { PipelineDeps } from './pipeline-deps.js';
import { outsideItems } from './reuse-first.js';
import { sharedPrefixSource } from './shared-prefix.js';
import type { PathDeps, RoutePlan } from './route-plan.js';
import { planUntouched, type PrepareInput, recordKey } from './prepare-input.js';
import { planCompaction } from './plan-conversation.js';
import { type CountOnce, exactBound } from './count-once.js';

// The compaction part of a route's request path once its adapter has counted the request (docs/design.md
// "One request": … → load record → choose the view → plan: fits / reuse / compact / degrade), the
// same for every wire format. The handler forwards what this returns and calls the plan back as
// the response goes out.

/**
 * The record of a request that was not forwarded first, read while the route counts it: such a
 * request could not be shown to fit below the trigger, so it most likely needs its record, and
 * the store's round trip then overlaps the counting instead of following it. (One forwarded first
 * needs it, if at all, only once its reply is out.) The read started as the request arrived is
 * taken when it is of this very key (early-record.ts).
 */
export function prefetchRecord(deps: PipelineDeps, input: PrepareInput & { model: ModelConfig }, identity: Identity, early?: RecordRead): RecordRead | undefined {
  if (input.forwardedFirst || !identity.keepsRecords || input.model.compaction.strategy === 'off') return undefined;
  const key = recordKey(deps, input.model, identity);
  if (early && early.key.tenant === key.tenant && early.key.conversation === key.conversation) return early;
  // One that went upstream on its last decision reads its record once its reply is out (plan-conversation.ts, reuse-first-note.ts).
  if (input.reusedFirst) return undefined;
  return readRecord(deps.records, key);
}

/** The bytes `outside` views, copied: a note keeps no client body alive. */
function copied(outside: readonly [Buffer, Buffer] | null): readonly [Buffer, Buffer] | null {
  return outside && [Buffer.from(outside[0]), Buffer.from(outside[1])];
}

/**
 * The request path from a request read by its format to the plan its handler carries out (docs/design.md
 * "One request": identify → count → load record → choose the view → plan: fits / reuse / compact /
 * degrade), the same for every format: the format counts and names what opens the conversation,
 * the engine plans over its neutral items.
 */
export async function prepareRequest<T, P extends ParsedRequest>(
  deps: PathDeps,
  format: WireFormat<T, P>,
  input: PrepareInput & { parsed: P; arrival?: Arrival | undefined; count?: CountOnce<T> | undefined },
): Promise<RoutePlan<T>> {
  const { parsed, model, arrival } = input;
  const items = model && model.compaction.strategy !== 'off' ? format.compactable(parsed) : null;
  if (!model || !items) {
    arrival?.settle(undefined);
    const counted = await format.count(deps.tokens, parsed, model);
    return planUntouched(deps, input, counted, model ? deps.tokens.budgetFor(model, parsed.body, counted.toolsTokens) : undefined);
  }
  // Worked out from the header as it arrived, when it named the conversation.
  const identity =
    input.reusedFirst?.identity ??
    arrival?.identity ??
    identifyBy(input.caller, input.conversation, () => format.opening(parsed, items), { secret: deps.secret, route: format.items.route });
  const read = prefetchRecord(deps, { ...input, model }, identity, arrival?.take());
  // Calibration is the tenant's own (tokens/calibration.ts): no other tenant's traffic moves its counts.
  const counters = deps.tokens.forTenant(identity.tenant);
  // Counted already when reuse-first needed the count (count-once.ts).
  const counted = await (input.count ? input.count(identity.tenant, model) : format.count(counters, parsed, model));
  // What the conversation's next request reads as it arrives: this one's record, unless this one,
  // counted exactly, would have gone upstream first had its history been known, as the next then
  // most likely does (forward-first.ts), or this one went on its last decision, as the next then
  // most likely does too, reading the record's version alone after its reply (reuse-first-note.ts).
  const next = read && !input.reusedFirst && canForwardFirst(parsed.body, () => exactBound(counted), model, input.conversation) === null;
  arrival?.settle(next ? read.key : undefined);
  const recall = format.recall ? format.recallOffer(model, parsed, counted, counters.scaleFor(model)) : undefined;
  // The injected tool is planned for as one of the request's tools (rule 3).
  const budget = deps.tokens.budgetFor(model, parsed.body, counted.toolsTokens + (recall?.toolTokens ?? 0));
  const sharedPrefix = sharedPrefixSource(format, parsed, model, recall, input.apiHeaders ?? {});
  return planCompaction(
    deps,
    { ...input, model },
    {
      items,
      wire: format.items,
      identity,
      counted,
      budget,
      recall,
      record: read,
      sharedPrefix,
      outside: () => input.reusedFirst?.note.outside ?? copied(outsideItems(parsed, format.itemsKey)),
    },
  );
}
