import { describe, expect, it } from 'vitest';
import { serverSchema } from '../config/schema.js';
import { serverTimeouts } from './server-timeouts.js';

describe('serverTimeouts', () => {
  it("passes the configured timeouts to Node and checks them at a tenth of the headers timeout, at most Node's 30 s", () => {
    const server = (o: object) => serverTimeouts(serverSchema.parse(o));
    expect(server({})).toEqual({ headersTimeout: 60_000, requestTimeout: 300_000, connectionsCheckingInterval: 6_000 });
    expect(server({ headers_timeout_ms: 500, request_timeout_ms: 0 })).toMatchObject({ requestTimeout: 0, connectionsCheckingInterval: 50 });
    expect(server({ headers_timeout_ms: 600_000, request_timeout_ms: 900_000 }).connectionsCheckingInterval).toBe(30_000);
  });
});
