import type { EventRecorder } from '../events/recorder.js';
import type { HandlerDeps } from '../pipeline/compacting-handler.js';
import type { Records } from '../pipeline/records.js';

/** Everything the HTTP layer needs, built once at boot (main.ts) or by a test: the compacting routes' part, and the rest. */
export interface AppDeps extends HandlerDeps {
  defaultUpstream: string;
  records: Records;
  events: EventRecorder;
  /** Key of the tenant and conversation hashes (the inspection endpoints need it too). */
  secret: string;
  readiness(): Promise<{ ready: boolean; store: string }>;
  /** What GET /metrics answers, when not this process's own registry (a cluster worker's). */
  metricsText?: () => Promise<string>;
}
