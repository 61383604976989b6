import { createRequire } from 'node:module';
import type { Logger } from '../observability/logger.js';
import { tracingSettings } from './settings.js';
import { useTracer } from './spans.js';

// Boot and shutdown of trace export. The SDK is loaded only when tracing is on, so a recap that
// does not trace never loads it. Endpoint, headers, timeout, sampler and batching are the
// exporter's and SDK's own OTEL_* variables; OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES name
// the service (default `recap`).

type Env = Record<string, string | undefined>;

export interface Tracing {
  readonly enabled: boolean;
  /** Exports the spans still buffered, then stops; bounded so that shutdown never hangs on it. */
  shutdown(): Promise<void>;
}

const SHUTDOWN_BOUND_MS = 5_000;
// A collector that is down fails every export (every few seconds): one warning a minute is enough.
const WARN_EVERY_MS = 60_000;

const OFF: Tracing = { enabled: false, shutdown: async () => undefined };

function version(): string | undefined {
  // src/tracing/ and dist/tracing/ are both two levels below package.json (a build elsewhere has none).
  try {
    return (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
  } catch {
    return undefined;
  }
}

export async function startTracing(env: Env, logger: Logger): Promise<Tracing> {
  const settings = tracingSettings(env);
  if (!settings.enabled) {
    if (settings.warning) logger.warn(settings.warning);
    return OFF;
  }
  const [{ diag, DiagLogLevel }, { NodeTracerProvider, BatchSpanProcessor }, resources] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/resources'),
  ]);
  const { OTLPTraceExporter } =
    settings.protocol === 'http/json' ? await import('@opentelemetry/exporter-trace-otlp-http') : await import('@opentelemetry/exporter-trace-otlp-proto');

  let lastWarning = 0;
  const warn = (message: string) => {
    if (Date.now() - lastWarning < WARN_EVERY_MS) return;
    lastWarning = Date.now();
    logger.warn({ detail: message.slice(0, 300) }, 'trace export failed');
  };
  diag.setLogger({ error: warn, warn, info: () => undefined, debug: () => undefined, verbose: () => undefined }, DiagLogLevel.WARN);

  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ 'service.name': 'recap', 'service.version': version(), 'process.pid': process.pid }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
  // The AsyncLocalStorage context manager (spans find their parent across awaits) and W3C trace context.
  provider.register();
  useTracer(provider.getTracer('recap', version()));
  logger.info({ protocol: settings.protocol }, 'exporting traces (OTLP)');
  return {
    enabled: true,
    async shutdown() {
      useTracer(undefined);
      const bound = new Promise<void>((resolve) => setTimeout(resolve, SHUTDOWN_BOUND_MS).unref());
      await Promise.race([provider.shutdown().catch((err: Error) => warn(err.message)), bound]);
    },
  };
}
