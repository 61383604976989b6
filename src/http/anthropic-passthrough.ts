import type { IncomingMessage } from 'node:http';
import type { UpstreamConfig } from '../config/config.js';
import { errors } from '../errors.js';
import type { Upstream, UpstreamRegistry } from '../upstream/client.js';
import type { ReadBody } from './passthrough.js';
import { readBody } from './read-body.js';

// Anthropic's other routes go to an Anthropic upstream, not to the default (OpenAI) one: an
// Anthropic key must never reach an OpenAI host. `POST /v1/messages/count_tokens` (and the rest
// under /v1/messages/) goes to the upstream of the model its body names, refused like
// /v1/messages when that upstream speaks another API; a request that carries `anthropic-version`
// (`GET /v1/models` from an Anthropic SDK, say) goes to the first `api: anthropic` upstream when
// the default upstream speaks OpenAI's.

const MESSAGES_PREFIX = '/v1/messages/';

export interface AnthropicTarget {
  upstream: Upstream;
  /** The body, read to find its model. */
  body?: ReadBody;
}

/** What choosing the upstream takes of the app. */
export interface AnthropicRouting {
  upstreams: UpstreamRegistry;
  upstreamConfigs: Record<string, UpstreamConfig>;
  defaultUpstream: string;
  routeModel(model: string): { upstream: string };
  bodyLimit: number;
}

function modelOf(raw: Buffer): string | undefined {
  try {
    const model = (JSON.parse(raw.toString('utf8')) as { model?: unknown } | null)?.model;
    return typeof model === 'string' ? model : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the request is Anthropic's: under /v1/messages/, or sent with `anthropic-version`. */
export function isAnthropicRequest(req: IncomingMessage): boolean {
  return (req.url ?? '').startsWith(MESSAGES_PREFIX) || req.headers['anthropic-version'] !== undefined;
}

/** The upstream an Anthropic request goes to (throws recap's error when there is none); `read`: the body the model gate read, if it did. */
export async function anthropicTarget(deps: AnthropicRouting, req: IncomingMessage, read: ReadBody | undefined): Promise<AnthropicTarget> {
  if ((req.url ?? '').startsWith(MESSAGES_PREFIX) && req.method === 'POST') {
    const body = read ?? { bytes: await readBody(req, deps.bodyLimit) };
    const model = modelOf(body.bytes);
    if (model !== undefined) {
      const { upstream: name } = deps.routeModel(model);
      const upstream = deps.upstreams.get(name);
      if (!upstream) throw errors.internal();
      if (upstream.config.api !== 'anthropic') throw errors.wrongUpstreamApi(model, '/v1/messages', upstream.name, upstream.config.api, 'anthropic');
      return { upstream, body };
    }
  }
  const name =
    deps.upstreamConfigs[deps.defaultUpstream]?.api === 'anthropic' ? deps.defaultUpstream : Object.entries(deps.upstreamConfigs).find(([, u]) => u.api === 'anthropic')?.[0];
  const upstream = name === undefined ? undefined : deps.upstreams.get(name);
  if (!upstream) throw errors.noAnthropicUpstream();
  return { upstream, ...(read ? { body: read } : {}) };
}
