import type { HttpBindings } from '@hono/node-server';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { RecapError } from '../errors.js';
import { registerDashboard } from './routes.js';

const app = new Hono<{ Bindings: HttpBindings }>();
registerDashboard(app);
app.onError((err) => new Response(null, { status: err instanceof RecapError ? err.status : 500 }));

describe('the dashboard files', () => {
  it('serves the page and its assets, its own and uPlot’s, with a policy that allows no inline script', async () => {
    const page = await app.request('/recap/ui');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/unsafe|\*/);
    const html = await page.text();
    // Every script is a file of recap's; no handler or style attribute, nothing from another origin.
    expect(html.match(/<script[^>]*>/g)).toEqual(['<script src="/recap/ui/vendor/uPlot.iife.min.js" defer>', '<script type="module" src="/recap/ui/assets/app.js">']);
    expect(html).not.toMatch(/\son\w+=|\sstyle=|https?:\/\//);
    for (const [path, type] of [
      ['/recap/ui/assets/app.js', 'text/javascript; charset=utf-8'],
      ['/recap/ui/assets/style.css', 'text/css; charset=utf-8'],
      ['/recap/ui/vendor/uPlot.iife.min.js', 'text/javascript; charset=utf-8'],
      ['/recap/ui/vendor/uPlot.min.css', 'text/css; charset=utf-8'],
    ] as const) {
      const res = await app.request(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe(type);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('serves nothing else: no other file, no path out of its folder', async () => {
    for (const path of [
      '/recap/ui/assets/nope.js',
      '/recap/ui/assets/..%2Froutes.ts',
      '/recap/ui/assets/%2e%2e%2f%2e%2e%2fmain.ts',
      '/recap/ui/vendor/uPlot.esm.js',
      '/recap/ui/vendor/..%2Fpackage.json',
    ]) {
      expect((await app.request(path)).status, path).toBe(404);
    }
  });
});
