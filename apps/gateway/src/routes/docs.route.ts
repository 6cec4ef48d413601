import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { App } from '@pgw/platform-http';
import { OPENAPI_PATH } from './openapi.route';

export const DOCS_PATH = '/docs';
export const DOCS_SCRIPT_PATH = '/docs/api-reference.js';

// The API reference, rendered in the browser by Scalar's standalone bundle from the OpenAPI document the
// gateway serves. The bundle is served from here, so the page needs no CDN and works with no internet. For
// the same reason it asks nothing of Scalar's services: the system's fonts instead of Scalar's web fonts
// (the bundle's CSS still declares them, so the variables that use them are overridden), and no AI agent,
// MCP or developer tools. Every tag is open, so a reader's search of the page finds every operation.
const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Payment gateway API reference</title>
  </head>
  <body>
    <div id="reference"></div>
    <script src="${DOCS_SCRIPT_PATH}"></script>
    <script>
      Scalar.createApiReference('#reference', {
        url: '${OPENAPI_PATH}',
        withDefaultFonts: false,
        customCss: ':root, .scalar-app { --scalar-font: system-ui, sans-serif; --scalar-font-code: ui-monospace, monospace; }',
        defaultOpenAllTags: true,
        showDeveloperTools: 'never',
        agent: { disabled: true },
        mcp: { disabled: true },
        hideClientButton: true,
      });
    </script>
  </body>
</html>
`;

/**
 * The standalone script of @scalar/api-reference (a production dependency). In the image, tools/deploy/bundle.ts
 * has copied it beside dist/main.js, where no node_modules holds the package; in the workspace it is read from
 * the package, beside its entry.
 */
function referenceScript(): string {
  const bundled = join(__dirname, 'api-reference.js');
  return readFileSync(
    existsSync(bundled)
      ? bundled
      : join(dirname(require.resolve('@scalar/api-reference')), 'browser', 'standalone.js'),
    'utf8',
  );
}

/** GET /docs: public (no API key), the API reference page; GET /docs/api-reference.js, the script it runs. */
export function registerDocsRoute(app: App): void {
  const script = referenceScript();
  app.get(DOCS_PATH, async (_request, reply) => reply.type('text/html; charset=utf-8').send(PAGE));
  app.get(DOCS_SCRIPT_PATH, async (_request, reply) =>
    reply
      .type('text/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=3600')
      .send(script),
  );
}
