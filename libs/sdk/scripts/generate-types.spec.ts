import { readFileSync } from 'node:fs';
import { DOCUMENT_PATH, renderTypes, TYPES_PATH } from './generate-types';

describe('the SDK types generated from docs/openapi.json', () => {
  it('are current: rendering them again from the document gives the committed file', async () => {
    // Proves that libs/sdk/src/generated/api.ts was regenerated (npm run sdk:generate) after the last
    // change of docs/openapi.json, so the SDK is typed by the document the gateway serves.
    const rendered = await renderTypes();
    const committed = readFileSync(TYPES_PATH, 'utf8');
    expect(committed === rendered ? 'current' : 'stale: run npm run sdk:generate').toBe('current');
  });

  it('type every public route of the document', async () => {
    // Proves the generator reads the document rather than a copy: each of its paths is a key of `paths`.
    const document = JSON.parse(readFileSync(DOCUMENT_PATH, 'utf8')) as {
      paths: Record<string, unknown>;
    };
    const rendered = await renderTypes();
    for (const path of Object.keys(document.paths)) expect(rendered).toContain(`"${path}": {`);
  });
});
