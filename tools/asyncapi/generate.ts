// Writes docs/asyncapi.json from the schema files, the topics and the services' consumers:
// `npm run docs:asyncapi` (`npx tsx tools/asyncapi/generate.ts`). tools/asyncapi/asyncapi.spec.ts fails when
// the committed file differs from what this writes, e.g. after a new schema version.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildDocument, captureConsumers, serialize } from './build-document';

export const DOCUMENT_PATH = join(__dirname, '..', '..', 'docs', 'asyncapi.json');

async function main(): Promise<void> {
  writeFileSync(DOCUMENT_PATH, serialize(buildDocument(await captureConsumers())));
  process.stdout.write(`wrote ${DOCUMENT_PATH}\n`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${String(error)}\n`);
    process.exit(1);
  });
}
