import type { App } from '@pgw/platform-http';
// The committed document, generated from the services' route schemas by tools/openapi/generate.ts; a
// spec there fails when it no longer matches the routes. Imported rather than read from disk, so the
// gateway's bundle and image carry it; docs/ is no Nx project, hence the boundary rule's exception.
// eslint-disable-next-line @nx/enforce-module-boundaries
import openApiDocument from '../../../../docs/openapi.json';

export const OPENAPI_PATH = '/api/v1/openapi.json';

/** GET /api/v1/openapi.json: public (no API key), the OpenAPI 3.1 document of the public API. */
export function registerOpenApiRoute(app: App): void {
  // No response schema: the document is served as it is committed, and it carries no request_id.
  const body = JSON.stringify(openApiDocument);
  app.get(OPENAPI_PATH, async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(body),
  );
}
