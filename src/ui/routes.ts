import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HttpBindings } from '@hono/node-server';
import type { Context, Hono } from 'hono';
import { errors } from '../errors.js';

type Env = { Bindings: HttpBindings };

// GET /recap/ui: the dashboard, served by recap itself from files of the package (web/ beside this
// file, copied into dist/ui/web by the build; uPlot from its npm package): no CDN, works offline.
// The page and its scripts hold no data and need no key; everything they show comes from the
// /recap/v1 API with the key the login form keeps in sessionStorage. The Content-Security-Policy
// allows recap's own scripts and styles only (no inline script, no eval), so text from the store
// (summaries are client-derived) can never run, however it were inserted.

export const UI_PATH = '/recap/ui';

const WEB_DIR = fileURLToPath(new URL('./web/', import.meta.url));
const UPLOT_DIR = dirname(createRequire(import.meta.url).resolve('uplot/dist/uPlot.iife.min.js'));
const VENDOR: Record<string, string> = { 'uPlot.iife.min.js': join(UPLOT_DIR, 'uPlot.iife.min.js'), 'uPlot.min.css': join(UPLOT_DIR, 'uPlot.min.css') };

const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  // Small files, read again by the browser only when they changed (a new recap version).
  'cache-control': 'no-cache',
};

interface Asset {
  body: Buffer;
  type: string;
}

/** The files the dashboard is made of, by the name they are served under; read once, on first use. */
async function loadAssets(): Promise<Map<string, Asset>> {
  const assets = new Map<string, Asset>();
  const typeOf = (name: string) => TYPES[name.slice(name.lastIndexOf('.'))];
  for (const name of await readdir(WEB_DIR)) {
    const type = typeOf(name);
    if (type) assets.set(name, { body: await readFile(join(WEB_DIR, name)), type });
  }
  for (const [name, file] of Object.entries(VENDOR)) assets.set(`vendor/${name}`, { body: await readFile(file), type: typeOf(name)! });
  return assets;
}

export function registerDashboard(app: Hono<Env>): void {
  let assets: Promise<Map<string, Asset>> | undefined;
  const serve = async (c: Context<Env>, name: string) => {
    assets ??= loadAssets();
    const asset = (await assets).get(name);
    if (!asset) throw errors.notFound(`Route GET ${c.req.path}`);
    return c.body(new Uint8Array(asset.body), 200, { 'content-type': asset.type, ...SECURITY_HEADERS });
  };
  app.get(UI_PATH, function dashboardPage(c) {
    return serve(c, 'index.html');
  });
  app.get(`${UI_PATH}/`, function dashboardPageSlash(c) {
    return serve(c, 'index.html');
  });
  app.get(`${UI_PATH}/assets/:name`, function dashboardAsset(c) {
    return serve(c, c.req.param('name'));
  });
  app.get(`${UI_PATH}/vendor/:name`, function dashboardVendorAsset(c) {
    return serve(c, `vendor/${c.req.param('name')}`);
  });
}
