import type { Config } from '../config/config.js';

// recap holding an upstream's key with nobody checked at its door lets anyone who reaches it spend
// that key. That is right for a recap only its own machine can reach (a single-user local setup)
// and wrong anywhere else, so boot says so unless recap listens on loopback only.

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

/** The boot warning, or undefined when recap is not an open relay. */
export function openRelayWarning(config: Config): string | undefined {
  if (config.clients || LOOPBACK.test(config.server.host)) return undefined;
  const keyed = Object.entries(config.upstreams)
    .filter(([, u]) => u.api_key !== undefined)
    .map(([name]) => name);
  if (keyed.length === 0) return undefined;
  return `open relay: upstream ${keyed.map((n) => `"${n}"`).join(', ')} has its own api_key and no clients are configured, so anyone who can reach recap (listening on ${config.server.host}) spends that key. Configure clients (see docs/shared-keys.md) or listen on 127.0.0.1 only.`;
}
