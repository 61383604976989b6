import { describe, expect, it } from 'vitest';
import { tracingSettings } from './settings.js';

describe('tracingSettings', () => {
  it('is off without an OTLP endpoint, whatever else is set', () => {
    expect(tracingSettings({})).toEqual({ enabled: false });
    expect(tracingSettings({ OTEL_SERVICE_NAME: 'recap-eu', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toEqual({ enabled: false });
  });

  it('is on with either endpoint variable, http/protobuf unless told otherwise', () => {
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toEqual({ enabled: true, protocol: 'http/protobuf' });
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toEqual({
      enabled: true,
      protocol: 'http/json',
    });
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' })).toEqual({
      enabled: true,
      protocol: 'http/protobuf',
    });
  });

  it('stays off when disabled or when the traces exporter is not otlp', () => {
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_SDK_DISABLED: 'TRUE' })).toEqual({ enabled: false });
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_TRACES_EXPORTER: 'none' })).toEqual({ enabled: false });
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_SDK_DISABLED: 'false' }).enabled).toBe(true);
  });

  it('says why when the protocol is one it cannot speak', () => {
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toEqual({
      enabled: false,
      warning: "traces off: OTLP protocol 'grpc' is not supported (use http/protobuf or http/json)",
    });
  });
});
