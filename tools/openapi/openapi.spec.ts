// Proves docs/openapi.json and docs/openapi-admin.json are exactly what the route schemas and the recorded
// examples generate today (so CI fails when a route changes without the documents), that they cover every
// PUBLIC_ROUTES and OPERATOR_ROUTES entry under a stable operationId, and that the gateway serves the
// public one without an API key.
import { readFileSync } from 'node:fs';
import { OPERATOR_ROUTES, PUBLIC_ROUTES } from '../../apps/gateway/src/routes.table';
import { WEBHOOK_KINDS } from '@pgw/contracts';
import { buildAdminDocument, buildDocument, captureRoutes, serialize } from './build-document';
import { ADMIN_DOCUMENT_PATH, DOCUMENT_PATH } from './generate';

interface Operation {
  operationId: string;
  summary?: string;
  'x-permission'?: string;
  responses: Record<string, { content?: Record<string, { examples?: object }> }>;
}
interface Document {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, { post: { parameters: Array<{ $ref: string }> } }>;
}

let generated: string;
let generatedAdmin: string;
let served: { status: number; body: unknown };

beforeAll(async () => {
  const capture = await captureRoutes(async (url) => {
    const res = await fetch(`${url}/api/v1/openapi.json`);
    served = { status: res.status, body: await res.json() };
  });
  generated = serialize(buildDocument(capture));
  generatedAdmin = serialize(buildAdminDocument(capture));
}, 120_000);

const pathOf = (url: string) => url.replace(/:([A-Za-z_]+)/g, '{$1}');

describe('docs/openapi.json and docs/openapi-admin.json', () => {
  it('are what tools/openapi/generate.ts writes from the current routes', () => {
    // Proves the committed documents match the routes and the examples; run the generator when this fails.
    expect(readFileSync(DOCUMENT_PATH, 'utf8')).toBe(generated);
    expect(readFileSync(ADMIN_DOCUMENT_PATH, 'utf8')).toBe(generatedAdmin);
  });

  it('have every public route, with its permission, a camelCase operationId, a summary and a recorded example', () => {
    // Proves nothing in PUBLIC_ROUTES is missing from the document, and that each success answer shows a real one.
    const document = JSON.parse(generated) as Document;
    expect(document.openapi).toBe('3.1.0');
    // Every service of the all-in-one runs here, so every route of the table is expected.
    for (const route of PUBLIC_ROUTES) {
      const operation = document.paths[pathOf(route.url)]?.[route.method.toLowerCase()];
      expect([route.method, route.url, operation?.['x-permission']]).toEqual([
        route.method,
        route.url,
        route.permission,
      ]);
      expect(operation?.operationId).toMatch(/^[a-z][A-Za-z]+$/);
      expect(operation?.summary).toBeTruthy();
      const success = Object.entries(operation!.responses).find(([status]) =>
        status.startsWith('2'),
      )!;
      expect(
        Object.keys(success[1].content?.['application/json']?.examples ?? {}).length,
      ).toBeGreaterThan(0);
    }
    expect(document.paths['/api/v1/charges']?.post?.operationId).toBe('createCharge');
    expect(document.paths['/api/v1/charges/{id}/refund']?.post?.operationId).toBe('refundCharge');
  });

  it('have every operator route in the admin document', () => {
    // Proves the operator API is documented: the gateway's directory and every forwarded operator route.
    const document = JSON.parse(generatedAdmin) as Document;
    for (const route of OPERATOR_ROUTES)
      expect([
        route.url,
        document.paths[pathOf(route.url)]?.[route.method.toLowerCase()]?.operationId,
      ]).toEqual([route.url, expect.any(String)]);
    expect(document.paths['/admin/v1/tenants']?.post?.operationId).toBe('createTenant');
  });

  it('describe each webhook kind of contract §7 with its signature header', () => {
    // Proves the `webhooks` section lists every kind the webhooks service sends, each signed.
    const document = JSON.parse(generated) as Document;
    expect(Object.keys(document.webhooks).sort()).toEqual([...WEBHOOK_KINDS].sort());
    for (const kind of WEBHOOK_KINDS)
      expect(document.webhooks[kind]?.post.parameters).toEqual([
        { $ref: '#/components/parameters/Signature' },
      ]);
  });

  it('is served at GET /api/v1/openapi.json without an API key', () => {
    // Proves the public route answers the committed document as it is.
    expect(served.status).toBe(200);
    expect(served.body).toEqual(JSON.parse(readFileSync(DOCUMENT_PATH, 'utf8')));
  });
});
