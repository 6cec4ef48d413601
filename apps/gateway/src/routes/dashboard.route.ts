import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import type { App } from '@pgw/platform-http';

export const DASHBOARD_PATH = '/dashboard';

// The dashboard (apps/dashboard) is a single-page app built by Vite into static files: index.html and
// content-hashed assets. The gateway serves them, so the dashboard shares its origin with /api/v1 and
// /admin/v1 (no CORS, no CDN). Pages are addressed after a '#', so every path other than an asset's is
// index.html.

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
};

// The app talks only to its own origin and runs only its own bundled script; React sets no inline script.
const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * Where the built files are: beside dist/main.js in the gateway's bundle (tools/deploy/bundle.ts copies
 * them there), else the workspace's apps/dashboard/dist (`npm run dashboard:build`).
 */
export function defaultDashboardDir(): string {
  const bundled = join(__dirname, 'dashboard');
  return existsSync(join(bundled, 'index.html'))
    ? bundled
    : join(__dirname, '..', '..', '..', 'dashboard', 'dist');
}

/** GET /dashboard and below: public files (the app asks for a key or the admin token itself); 404 when not built. */
export function registerDashboardRoute(app: App, dir: string = defaultDashboardDir()): void {
  const root = normalize(dir + sep);
  const send = (path: string) => {
    const file = normalize(join(root, path));
    // A path that climbs out of the directory is no file of the dashboard's.
    if (!file.startsWith(root) || !existsSync(file) || !statSync(file).isFile()) return null;
    return {
      body: readFileSync(file),
      type: CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
    };
  };
  const handler = async (
    request: { params: { '*'?: string } },
    reply: import('fastify').FastifyReply,
  ) => {
    const wanted = request.params['*'] ?? '';
    const asset = wanted.startsWith('assets/') ? send(wanted) : null;
    if (wanted.startsWith('assets/') && asset === null)
      return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
    const file = asset ?? send('index.html');
    if (file === null)
      return reply
        .code(404)
        .type('text/plain; charset=utf-8')
        .send('The dashboard is not built: npm run dashboard:build');
    // Assets are named by their content's hash, so they never change; index.html names the current ones.
    const cache = asset === null ? 'no-cache' : 'public, max-age=31536000, immutable';
    return reply
      .type(file.type)
      .header('cache-control', cache)
      .header('content-security-policy', CONTENT_SECURITY_POLICY)
      .header('x-content-type-options', 'nosniff')
      .send(file.body);
  };
  app.get(DASHBOARD_PATH, async (_request, reply) => reply.redirect(`${DASHBOARD_PATH}/`, 302));
  app.get<{ Params: { '*'?: string } }>(`${DASHBOARD_PATH}/*`, handler);
}
