// Proves docs/openapi.json is exactly what the services' route schemas generate today (so CI fails when a
// route changes without the document), that it covers every PUBLIC_ROUTES entry, and that the gateway
// serves it without an API key.
import { readFileSync } from 'node:fs';
import { PUBLIC_ROUTES } from '../../apps/gateway/src/routes.table';
import { buildDocument, captureRoutes, serialize } from './build-document';
import { DOCUMENT_PATH } from './generate';

let generated: string;
let served: { status: number; body: unknown };

beforeAll(async () => {
  const captured = await captureRoutes(async (url) => {
    const res = await fetch(`${url}/api/v1/openapi.json`);
    served = { status: res.status, body: await res.json() };
  });
  generated = serialize(buildDocument(captured));
}, 120_000);

describe('docs/openapi.json', () => {
  it('is what tools/openapi/generate.ts writes from the current routes', () => {
    // Proves the committed document matches the routes; run the generator when this fails.
    expect(readFileSync(DOCUMENT_PATH, 'utf8')).toBe(generated);
  });

  it('has every public route, with its permission, under the same path', () => {
    // Proves nothing in PUBLIC_ROUTES is missing from the document.
    const document = JSON.parse(generated) as { openapi: string; paths: Record<string, Record<string, { 'x-permission'?: string }>> };
    expect(document.openapi).toBe('3.1.0');
    // Every service of the all-in-one runs here, so every route of the table is expected.
    for (const route of PUBLIC_ROUTES) {
      const path = route.url.replace(/:([A-Za-z_]+)/g, '{$1}');
      expect([route.method, route.url, document.paths[path]?.[route.method.toLowerCase()]?.['x-permission']]).toEqual([route.method, route.url, route.permission]);
    }
  });

  it('is served at GET /api/v1/openapi.json without an API key', () => {
    // Proves the public route answers the committed document as it is.
    expect(served.status).toBe(200);
    expect(served.body).toEqual(JSON.parse(readFileSync(DOCUMENT_PATH, 'utf8')));
  });
});
