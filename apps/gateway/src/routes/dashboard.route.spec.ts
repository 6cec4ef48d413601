// Proves the gateway serves the dashboard's built files at /dashboard/: index.html for the app's pages,
// the hashed assets with their types and a year's cache, a content security policy that keeps the page to
// its own origin, nothing from outside the directory, and a plain 404 that says how to build it when absent.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp, type App } from '@pgw/platform-http';
import { registerDashboardRoute } from './dashboard.route';

const INDEX =
  '<!doctype html><script type="module" src="/dashboard/assets/index-abc123.js"></script>';
let app: App;
let empty: App;

beforeAll(async () => {
  const parent = mkdtempSync(join(tmpdir(), 'pgw-dashboard-'));
  const dir = join(parent, 'dist');
  mkdirSync(join(dir, 'assets'), { recursive: true });
  writeFileSync(join(dir, 'index.html'), INDEX);
  writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'console.log("app")');
  writeFileSync(join(dir, 'assets', 'index-abc123.css'), 'body{}');
  writeFileSync(join(parent, 'secret.txt'), 'not the dashboard');
  app = buildApp({ name: 'gateway', log: { level: 'silent' } });
  registerDashboardRoute(app, dir);
  empty = buildApp({ name: 'gateway', log: { level: 'silent' } });
  registerDashboardRoute(empty, join(parent, 'missing'));
  await Promise.all([app.ready(), empty.ready()]);
});
afterAll(async () => Promise.all([app.close(), empty.close()]));

describe('GET /dashboard', () => {
  it('redirects /dashboard to /dashboard/ and answers index.html there, never cached, with a strict CSP', async () => {
    // Proves a browser lands on the app, and that a new build is picked up at the next visit.
    const bare = await app.inject({ url: '/dashboard' });
    expect([bare.statusCode, bare.headers.location]).toEqual([302, '/dashboard/']);
    const page = await app.inject({ url: '/dashboard/' });
    expect([page.statusCode, page.headers['content-type'], page.headers['cache-control']]).toEqual([
      200,
      'text/html; charset=utf-8',
      'no-cache',
    ]);
    expect(page.body).toBe(INDEX);
    expect(page.headers['content-security-policy']).toContain("default-src 'self'");
    expect(page.headers['content-security-policy']).toContain("connect-src 'self'");
  });

  it('answers the hashed assets with their content type, cached for good', async () => {
    // Proves the script and the style reach the browser as such (nosniff would refuse them otherwise).
    const script = await app.inject({ url: '/dashboard/assets/index-abc123.js' });
    expect([
      script.statusCode,
      script.headers['content-type'],
      script.headers['cache-control'],
    ]).toEqual([200, 'text/javascript; charset=utf-8', 'public, max-age=31536000, immutable']);
    const style = await app.inject({ url: '/dashboard/assets/index-abc123.css' });
    expect([style.statusCode, style.headers['content-type']]).toEqual([
      200,
      'text/css; charset=utf-8',
    ]);
  });

  it('answers 404 for a missing asset and for any path that climbs out of the directory', async () => {
    // Proves a stale page's asset is a 404, not index.html parsed as script, and that ../ reads nothing.
    expect((await app.inject({ url: '/dashboard/assets/index-old.js' })).statusCode).toBe(404);
    for (const url of [
      '/dashboard/assets/../../secret.txt',
      '/dashboard/assets/%2e%2e/%2e%2e/secret.txt',
      '/dashboard/assets/..%2f..%2fsecret.txt',
    ]) {
      const answer = await app.inject({ url });
      expect(answer.body).not.toContain('not the dashboard');
    }
  });

  it('says how to build the dashboard when it is not built', async () => {
    // Proves a gateway without the files answers a clear 404 rather than an empty page or a 500.
    const answer = await empty.inject({ url: '/dashboard/' });
    expect([answer.statusCode, answer.body]).toEqual([
      404,
      'The dashboard is not built: npm run dashboard:build',
    ]);
  });
});
