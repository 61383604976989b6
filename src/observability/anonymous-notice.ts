import type { Logger } from './logger.js';
import type { RequestLog } from './request-log.js';

// A caller without any credential (plain curl) keeps no records unless server.anonymous is
// `shared` (docs/design.md rule 7, tenancy): each of its over-budget requests is compacted again from scratch.
// The first time that happens the log says so, once per process, and the dashboard carries a line.

export const ANONYMOUS_NOTICE =
  'requests without any credential are compacted without records: each over-budget request is summarized again from scratch. To keep their records, set server.anonymous: shared (one tenant for every caller without a credential)';

export interface AnonymousNotice {
  /** Looks at a finished request of a caller without any credential and without records (server.anonymous off); warns once when it was compacted. */
  observe(log: RequestLog): void;
  /** The dashboard's lines: the warning, with how many such requests this process saw and since when. */
  lines(): string[];
}

export function createAnonymousNotice(logger: Logger): AnonymousNotice {
  let count = 0;
  let since: number | undefined;
  return {
    observe(log) {
      if (log.action !== 'compacted' && log.action !== 'degraded' && !log.cleared) return;
      count++;
      if (since !== undefined) return;
      since = Date.now();
      logger.warn({ model: log.modelLabel }, ANONYMOUS_NOTICE);
    },
    lines() {
      if (since === undefined) return [];
      return [`${count} ${count === 1 ? 'request' : 'requests'} since ${new Date(since).toISOString()}: ${ANONYMOUS_NOTICE}.`];
    },
  };
}
