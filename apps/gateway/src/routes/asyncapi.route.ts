import type { App } from '@pgw/platform-http';
// The committed document, generated from the Avro schema files, the topics and the services' consumers by
// tools/asyncapi/generate.ts; a spec there fails when it no longer matches them. Imported rather than read
// from disk, so the gateway's bundle and image carry it; docs/ is no Nx project, hence the boundary rule's exception.
// eslint-disable-next-line @nx/enforce-module-boundaries
import asyncApiDocument from '../../../../docs/asyncapi.json';

export const ASYNCAPI_PATH = '/api/v1/asyncapi.json';

/** GET /api/v1/asyncapi.json: public (no API key), the AsyncAPI 3 document of the events on the bus. */
export function registerAsyncApiRoute(app: App): void {
  // No response schema: the document is served as it is committed, and it carries no request_id.
  const body = JSON.stringify(asyncApiDocument);
  app.get(ASYNCAPI_PATH, async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(body),
  );
}
