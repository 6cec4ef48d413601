// Writes docs/openapi.json from the services' route schemas: `npx tsx tools/openapi/generate.ts`.
// tools/openapi/openapi.spec.ts fails when the committed file differs from what this writes.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildDocument, captureRoutes, serialize } from './build-document';

export const DOCUMENT_PATH = join(__dirname, '..', '..', 'docs', 'openapi.json');

async function main(): Promise<void> {
  writeFileSync(DOCUMENT_PATH, serialize(buildDocument(await captureRoutes())));
  process.stdout.write(`wrote ${DOCUMENT_PATH}\n`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${String(error)}\n`);
    process.exit(1);
  });
}
