// Writes docs/openapi.json and docs/openapi-admin.json from the route schemas of the services and the
// gateway, with examples recorded through the all-in-one: `npx tsx tools/openapi/generate.ts`.
// tools/openapi/openapi.spec.ts fails when a committed file differs from what this writes.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildAdminDocument, buildDocument, captureRoutes, serialize } from './build-document';

export const DOCUMENT_PATH = join(__dirname, '..', '..', 'docs', 'openapi.json');
export const ADMIN_DOCUMENT_PATH = join(__dirname, '..', '..', 'docs', 'openapi-admin.json');

async function main(): Promise<void> {
  const capture = await captureRoutes();
  writeFileSync(DOCUMENT_PATH, serialize(buildDocument(capture)));
  writeFileSync(ADMIN_DOCUMENT_PATH, serialize(buildAdminDocument(capture)));
  process.stdout.write(`wrote ${DOCUMENT_PATH} and ${ADMIN_DOCUMENT_PATH}\n`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(
      `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  });
}
