import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';
import { clientField, LOG_FIELD_MAX_CHARS } from './request-log.js';

// A model name no `models[]` entry matches is forwarded without compaction: said once per name in
// the log (a typo in a config's `match`, a new model the config does not know yet), counted every
// time. Names are the clients' to choose, so what is remembered is bounded: at most MAX_NAMES
// names, each by its first characters (as a log line shows it); past that, one last warning says so.

const MAX_NAMES = 1000;

export function createUnmatchedModelNotice(logger: Logger, metrics: Metrics, maxNames = MAX_NAMES): (name: string) => void {
  const warned = new Set<string>();
  let full = false;
  return (name) => {
    metrics.unmatchedModels.inc();
    if (full) return;
    // A copy: a slice of a 2 MiB name would keep the whole name alive in the set.
    const key = Buffer.from(name.slice(0, LOG_FIELD_MAX_CHARS)).toString();
    if (warned.has(key)) return;
    if (warned.size >= maxNames) {
      full = true;
      logger.warn({ names: warned.size }, 'more model names no models[] entry matches: no longer warned one by one (see recap_unmatched_model_requests_total)');
      return;
    }
    warned.add(key);
    logger.warn({ model: clientField(name) }, 'no models[] entry matches this model name: forwarded without compaction');
  };
}
