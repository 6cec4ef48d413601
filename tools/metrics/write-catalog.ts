// `npm run metrics:catalog`: writes docs/metrics.md from the catalog in libs/platform/metrics
// (libs/platform/metrics/src/catalog.spec.ts fails while the two differ).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderCatalog } from '@pgw/platform-metrics';

writeFileSync(join(__dirname, '..', '..', 'docs', 'metrics.md'), renderCatalog());
