// Whether and how recap exports traces, from the standard OpenTelemetry environment variables
// alone: on when an OTLP endpoint is named, off by default and with OTEL_SDK_DISABLED=true.

type Env = Record<string, string | undefined>;

export type TraceProtocol = 'http/protobuf' | 'http/json';

export type TracingSettings = { enabled: true; protocol: TraceProtocol } | { enabled: false; warning?: string };

const PROTOCOLS: readonly string[] = ['http/protobuf', 'http/json'];

export function tracingSettings(env: Env): TracingSettings {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return { enabled: false };
  if (!env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT && !env.OTEL_EXPORTER_OTLP_ENDPOINT) return { enabled: false };
  const exporters = (env.OTEL_TRACES_EXPORTER ?? 'otlp').split(',').map((e) => e.trim());
  if (!exporters.includes('otlp')) return { enabled: false };
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL || 'http/protobuf').trim();
  if (!PROTOCOLS.includes(protocol)) {
    return { enabled: false, warning: `traces off: OTLP protocol '${protocol}' is not supported (use http/protobuf or http/json)` };
  }
  return { enabled: true, protocol: protocol as TraceProtocol };
}
