import type { IncomingHttpHeaders } from 'node:http';
import type { ItemsOnArrival } from '../body/items-on-arrival.js';
import type { KeepLater } from '../body/parse-sliced.js';
import type { Member } from '../body/scan.js';
import type { SeenItems } from '../body/seen-items.js';
import type { NeutralItem } from '../compaction/items.js';
import type { ModelConfig } from '../config/config.js';
import type { RecapError } from '../errors.js';
import type { StreamEndRule } from '../http/stream-end.js';
import type { ChatMessage } from '../messages/types.js';
import type { RecallWire } from '../recall/wire.js';
import type { ReadReply } from '../summarizer/reply.js';
import type { Pause } from '../slicing/slicer.js';
import type { EventRoute } from '../store/event-log.js';
import type { OutputLimits } from '../tokens/budget.js';
import type { TokenCounter } from '../tokens/counter.js';

// The wire-format boundary (docs/design.md): everything recap knows of one API (chat completions,
// Responses, …) is one object of this shape, in one folder under src/wire/, registered in one line
// (formats.ts). The request path (pipeline/) takes a format and never asks which one it is; the
// engine (compaction/) plans over neutral items and never sees a wire shape.

/** The API an upstream speaks (`upstreams.<name>.api`): a format is forwarded only to its own. */
export type UpstreamApi = 'openai' | 'anthropic';

/** A request as its format read it: the checked body and the client's bytes, with what splicing needs of them. */
export interface ParsedRequest<B extends RequestBody = RequestBody> {
  body: B;
  raw: Buffer;
  /** The body's top-level members with their spans in `raw`, when the format keeps them. */
  members?: readonly Member[] | null | undefined;
}

/** What every compacting API's body carries: the model it names and the limits of its reply (rule 3). */
export interface RequestBody extends OutputLimits {
  model: string;
}

/** What a format's parse may take from the cache of seen items (seen/). */
export interface SeenInput {
  seen: SeenItems;
  /** The body's items found in the cache while it arrived. */
  arrived?: ItemsOnArrival | undefined;
  /** Takes the keeping of the body's new items for later requests, for the request path to do off its way to the upstream (body/parse-sliced.ts). */
  keepLater?: KeepLater | undefined;
}

/** What the engine needs of one format's items: it plans over the neutral items and builds views from these. */
export interface WireItems<T> {
  /** A conversation's records are kept per route: the route's name. */
  readonly route: EventRoute;
  describe(item: T): NeutralItem;
  /** The item that carries recap's summary: `sealed` is the summary codec's text. */
  summaryItem(sealed: string): T;
  /** The text of an item that could be recap's summary (the caller checks its seal), else null. */
  sealedTextOf(item: T): string | null;
  /** A result with its content replaced by the stub of rule 11, naming the tool and the result's own size (and `recall`: saying it can be recalled). */
  cleared(item: T, toolName: string | null, recall: boolean): T;
  /** The item as a chat message for the summarizer's transcript and the template; null: nothing to show. */
  asChat(item: T): ChatMessage | null;
}

/** The token counters of the request path, or of `recap count` (no calibration). */
export interface ItemCounters {
  counterFor(encoding: ModelConfig['encoding']): TokenCounter;
  /** Calibration of a model's estimates (identity when it has none). */
  scaleFor(model: ModelConfig | undefined): (tokens: number) => number;
}

/** A request's tokens, as its format counted them: per item, aligned with its items. */
export interface CountedItems<T> {
  counter: TokenCounter;
  /** The whole prompt as the client sent it (calibrated estimate): x-recap-tokens-in. */
  tokensIn: number;
  /** Tokens of the definitions (tools, functions, response_format), calibrated. */
  toolsTokens: number;
  /** The same, uncalibrated. */
  rawTools: number;
  /** Tokens of each item (calibrated). */
  perItem: number[];
  /** Tokens every view carries besides its items: the reply priming, instructions outside the items. */
  fixedTokens: number;
  /** Canonical hash of each item. */
  hashes: string[];
  countItem(item: T): number;
  /** Uncalibrated tokens of what went upstream (the view, or the client's own items when null): calibration compares it with usage. */
  rawOut(view: readonly T[] | null): number;
}

/** A request that may be offered recap_recall (recall/offer.ts): what its tool definition costs. */
export interface RecallOffer {
  toolTokens: number;
  rawToolTokens: number;
}

/** Upper bounds of a request's uncalibrated prompt tokens, for forwarding it before it is counted (pipeline/forward-first.ts). */
export interface PromptBound {
  /** The items (with the reply's priming), as the budget's share for them counts them. */
  messages: number;
  /** The tool, function and response_format definitions. */
  definitions: number;
}

/** What a summarizer call on the conversation's cached prefix is asked (shared-prefix.ts). */
export interface SharedPrefixCall {
  /** How many of the forwarded body's items the prefix keeps: up to the end of the span summarized. */
  keep: number;
  /** The one user message appended: summarize what is above it. */
  instruction: string;
  /** The summary's token limit. */
  maxTokens: number;
  /** The limit's field when the body names none (chat: `summarizer.token_limit_field`). */
  tokenLimitField: 'max_tokens' | 'max_completion_tokens';
}

/**
 * The summarizer call on the conversation's own cached prefix (`summarizer.shared_prefix`,
 * docs/cost.md): the body recap forwarded with its items cut after the span, byte for byte, and
 * one instruction appended, so the provider reads the prefix from its cache; sent on the format's
 * own upstream path.
 */
export interface SharedPrefixWire {
  body(forwarded: Buffer, call: SharedPrefixCall): Buffer;
  /** The reply, read as strictly as a summarizer's (summarizer/reply.ts). */
  readReply(text: string): ReadReply;
}

/** One API recap compacts: `T` its conversation item, `P` its parsed request. */
export interface WireFormat<T, P extends ParsedRequest = ParsedRequest> {
  /** The client's route, e.g. `/v1/chat/completions`. */
  readonly path: string;
  /** Below the upstream's base URL, e.g. `/chat/completions`. */
  readonly upstreamPath: string;
  /** The API the upstream must speak: a request resolved to another kind of upstream is refused. */
  readonly upstreamApi: UpstreamApi;
  /** The body's member holding the conversation items (`messages`, `input`), looked up in the cache of seen items as it arrives. */
  readonly itemsKey: string;
  /** The items as the engine sees them; `items.route` names the route in records, events and logs. */
  readonly items: WireItems<T>;

  /**
   * Parses and checks the body (recap's 400s; everything else is the upstream's to judge), a big
   * one in slices (`pause` between them), keeping what `withView` needs of the client's bytes.
   */
  read(raw: Buffer, pause: Pause, seen: SeenInput): Promise<P>;
  /** The conversation items recap may compact, or null: the request is forwarded untouched (history kept by the provider, no items). */
  compactable(parsed: P): readonly T[] | null;
  /**
   * What opens the conversation (pinned instructions, wherever the API keeps them, and the first
   * user item), as canonical hashes: a conversation no header names is identified by them.
   */
  opening(parsed: P, items: readonly T[]): readonly string[];
  /** Counts the request (its items, fixed parts and definitions) with `counters`. */
  count(counters: ItemCounters, parsed: P, model: ModelConfig | undefined): Promise<CountedItems<T>>;
  /** What recap_recall costs this request when it may be offered it (rule 13), else undefined. */
  recallOffer(model: ModelConfig, parsed: P, counted: CountedItems<T>, scale: (tokens: number) => number): RecallOffer | undefined;
  /** Bounds of the prompt's tokens worked out without counting anything new, or null when the format cannot bound them. */
  promptBound(parsed: P, counter: TokenCounter): PromptBound | null;

  /** The client's bytes with `view` in place of its items (and the pinned part, where the API keeps it apart): nothing else changes (rule 12). */
  withView(parsed: P, view: readonly T[]): Buffer;
  /** Which events end the route's streams, successfully or not: only a stream that ended successfully is a complete turn. */
  readonly streamEnd: StreamEndRule;
  /** How the route injects and answers recap_recall (rule 13); a format without it is never offered recall. */
  readonly recall?: RecallWire<T, P>;
  /** The summarizer call on the conversation's cached prefix (`summarizer.shared_prefix`). */
  readonly sharedPrefix: SharedPrefixWire;
  /** recap's own error in this API's shape (the body; status and headers are the error's). */
  errorBody(err: RecapError): string;
}

/** A registered format, whatever its item and request types (formats.ts). */
// biome-ignore lint/suspicious/noExplicitAny: the registry holds formats of different item types; each is used whole, with its own.
export type AnyWireFormat = WireFormat<any, any>;
