import { request, type IncomingHttpHeaders } from 'node:http';

// One HTTP exchange with nothing in between: any Host header, an absolute-form request target,
// and redirects never followed (unlike fetch and the SDKs), so a test sees exactly what recap sent.

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface RawRequest {
  method?: string;
  /** The request target as written on the request line: `/v1/models` or `http://host/v1/models`. */
  target: string;
  headers?: Record<string, string>;
  body?: unknown;
}

export function rawRequest(baseUrl: string, r: RawRequest): Promise<RawResponse> {
  const url = new URL(baseUrl);
  const body = r.body === undefined ? undefined : JSON.stringify(r.body);
  const headers = { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...r.headers };
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method: r.method ?? (body ? 'POST' : 'GET'), path: r.target, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
