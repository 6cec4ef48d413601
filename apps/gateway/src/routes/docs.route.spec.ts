// Proves GET /docs on the gateway is an API reference that renders in a real browser with no internet: the
// page and its script come from the gateway alone (every other request is refused), and the rendered page
// names every operation of the document the gateway serves. Headless Chromium is Debian's `chromium` (.ci/run installs it); where it is
// absent the browser test is skipped and says so.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startFixture, stopFixture, type Fixture } from '../testing/gateway-fixture';
import { DOCS_PATH, DOCS_SCRIPT_PATH } from './docs.route';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) =>
  existsSync(path),
);
// CI installs chromium and sets REQUIRE_CHROMIUM, so there a missing browser fails instead of skipping.
const REQUIRED = process.env.REQUIRE_CHROMIUM === '1';
if (CHROMIUM === undefined && !REQUIRED)
  process.stdout.write(
    'docs.route.spec: SKIPPED the browser test: no chromium (apt-get install chromium)\n',
  );

let f: Fixture;
let url: string;

beforeAll(async () => {
  f = await startFixture();
  url = await f.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => stopFixture(f));

describe('GET /docs', () => {
  it('answers the page and the reference script without an API key', async () => {
    // Proves the page loads the script from the gateway itself, and the script is Scalar's bundle.
    const page = await fetch(`${url}${DOCS_PATH}`);
    expect([page.status, page.headers.get('content-type')]).toEqual([
      200,
      'text/html; charset=utf-8',
    ]);
    const html = await page.text();
    expect(html).toContain(`<script src="${DOCS_SCRIPT_PATH}"></script>`);
    expect(html).not.toMatch(/https?:\/\//);
    const script = await fetch(`${url}${DOCS_SCRIPT_PATH}`);
    expect(script.status).toBe(200);
    expect(await script.text()).toContain('createApiReference');
  });

  (CHROMIUM === undefined && !REQUIRED ? it.skip : it)(
    'renders every public operation in headless Chromium, offline',
    async () => {
      // Proves an integrator's browser shows the reference from the gateway alone: each operation's summary is on the page.
      if (CHROMIUM === undefined)
        throw new Error('REQUIRE_CHROMIUM is set and no chromium is installed');
      const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
      try {
        const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
        const elsewhere: string[] = [];
        await page.route('**/*', async (route) => {
          if (route.request().url().startsWith(url)) return route.continue();
          elsewhere.push(route.request().url());
          return route.abort();
        });
        await page.goto(`${url}${DOCS_PATH}`);
        await page.getByText('Create a charge').first().waitFor({ timeout: 30_000 });
        const text = await page.locator('body').innerText();
        const shot = join(mkdtempSync(join(tmpdir(), 'pgw-docs-')), 'docs.png');
        await page.screenshot({ path: shot, fullPage: false });
        expect(existsSync(shot)).toBe(true);
        const served = (await (await fetch(`${url}/api/v1/openapi.json`)).json()) as {
          paths: Record<string, Record<string, { summary: string }>>;
        };
        const summaries = Object.values(served.paths).flatMap((operations) =>
          Object.values(operations).map((op) => op.summary),
        );
        expect(summaries.length).toBeGreaterThan(15);
        expect(summaries.filter((summary) => !text.includes(summary))).toEqual([]);
        expect(text).toContain('Test cards');
        expect(text).toContain('4000 0000 0000 0002');
        expect(text).toContain('X-Signature');
        expect(elsewhere).toEqual([]);
      } finally {
        await browser.close();
      }
    },
    90_000,
  );
});
