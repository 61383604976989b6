import type { Caller } from '../auth/caller.js';
import { type Identity, identifyBy, MAX_CONVERSATION_ID_BYTES, type NamedConversation } from '../conversation/identify.js';
import type { ConversationKey } from '../store/store.js';
import type { Records } from './records.js';

// A conversation past its trigger that is planned first reads its record on every request (the
// stored summary it reuses). That read starts as the request arrives, before its body is read,
// when the conversation's last request in this process read its record, could not have gone
// upstream first and did not go on its last decision (prepare.ts; one that did reads its record's
// version alone after its reply, reuse-first-note.ts): the store's round trip then overlaps
// reading, parsing and counting the body instead of following them. Only what is known at
// arrival finds it: the tenant and the conversation the header names on this route, worked out
// by identify itself, so that a tenant's entry is found by that tenant's requests alone (rule 7).
// The key read is the one the last request read under (a model in audit mode keeps its records
// apart, audit.ts); a request whose own key differs reads its own instead. The read belongs to
// its request alone: a later request never takes an earlier one's, which the store may have
// moved past since.
//
// A request that turns out not to need its record (forwarded first, another model) wastes that
// one read. It is rare: a client resends its whole history, so a conversation past its trigger
// stays past it, and the round trip saved is on every one of its requests.

/** A conversation's record as the request path reads it. */
type LoadedRecord = Awaited<ReturnType<Records['load']>>;

/** A read of the record kept under `key`. */
export interface RecordRead {
  key: ConversationKey;
  record: Promise<LoadedRecord>;
  /** When it was issued: in this process's sequence of record writes (write-sequence.ts), and in ms. */
  seq: number;
  at: number;
}

/** Issues a read of the record kept under `key`. */
export function readRecord(records: Pick<Records, 'load' | 'writes'>, key: ConversationKey): RecordRead {
  const seq = records.writes.now();
  return { key, record: records.load(key), seq, at: Date.now() };
}

/** A read of the version alone of the record kept under `key` (reuse-first-note.ts), stamped as a RecordRead is. */
export interface VersionRead {
  version: Promise<number | 'unavailable'>;
  seq: number;
  at: number;
}

/** Issues a read of the version of the record kept under `key`. */
export function readVersion(records: Pick<Records, 'loadVersion' | 'writes'>, key: ConversationKey): VersionRead {
  const seq = records.writes.now();
  return { version: records.loadVersion(key), seq, at: Date.now() };
}

/** What is known of a request with a named conversation as it arrives. */
export interface Arrival {
  /** Its identity, as identify works it out from the header. */
  identity: Identity;
  /**
   * The read of its conversation's record, when the conversation's last request needed it (the
   * request's own only if the request computes the same key). Handed over once: the request
   * keeps nothing of it afterwards, so a record read is not held while the reply goes out.
   */
  take(): RecordRead | undefined;
  /** The key the request's record was read under, or undefined when it needed none: what the conversation's next request reads early. A read not taken by then is dropped. */
  settle(key: ConversationKey | undefined): void;
}

export interface EarlyRecords {
  /** undefined: no conversation named, an id identify refuses, or a caller that keeps no records. */
  arrive(caller: Caller, named: NamedConversation | undefined, route: string): Arrival | undefined;
}

/** A named conversation needs nothing from the body. */
const noOpening = (): readonly string[] => [];

/** `entries`: how many conversations are remembered, the least recently settled forgotten first. */
export function createEarlyRecords(records: Pick<Records, 'load' | 'writes'>, secret: string, entries: number): EarlyRecords {
  // Insertion order: the first is the least recently settled.
  const keys = new Map<string, ConversationKey>();
  return {
    arrive(caller, named, route) {
      // identify refuses an oversized id with its 400, in its turn: nothing is read for it.
      if (!named || named.raw.length > MAX_CONVERSATION_ID_BYTES) return undefined;
      const identity = identifyBy(caller, named, noOpening, { secret, route });
      if (!identity.keepsRecords) return undefined;
      // The conversation's hash is keyed by its tenant already; the tenant stays in the slot all the same.
      const slot = `${identity.tenant}\n${identity.conversation}`;
      const key = keys.get(slot);
      let read: RecordRead | undefined;
      if (key) {
        read = readRecord(records, key);
        // Left unused (another key, forwarded first, a request that failed first), nothing awaits it.
        read.record.catch(() => undefined);
      }
      return {
        identity,
        take() {
          const taken = read;
          read = undefined;
          return taken;
        },
        settle(used) {
          read = undefined;
          keys.delete(slot);
          if (!used) return;
          keys.set(slot, used);
          if (keys.size > entries) keys.delete(keys.keys().next().value as string);
        },
      };
    },
  };
}
