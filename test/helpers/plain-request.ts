import { request, type IncomingHttpHeaders } from 'node:http';

// One HTTP exchange with nothing in between: any Host header, an absolute-form request target,
// redirects never followed and bodies never decoded (unlike fetch and the SDKs), so a test sees
// exactly what recap sent.

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body as it came over the wire (gzip stays gzip). */
  bytes: Buffer;
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
      res.on('end', () => {
        const bytes = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes, body: bytes.toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
