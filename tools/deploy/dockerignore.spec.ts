// The Dockerfile and .dockerignore agree: nothing the build copies is left out of its context.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { APPS } from './apps';
import { copySources, isIgnored, parseDockerignore } from './dockerignore';
import { ROOT } from './manifests';

const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');

/** The COPY sources that a .dockerignore would leave out, for every app's build. */
function excludedSources(dockerignore: string): string[] {
  const patterns = parseDockerignore(dockerignore);
  const sources = new Set(APPS.flatMap((app) => copySources(dockerfile, { APP: app })));
  return [...sources].filter((source) => isIgnored(patterns, source));
}

describe('.dockerignore', () => {
  // Proves every path a COPY names (every app's) reaches the build context.
  it("leaves in every path the Dockerfile's COPY instructions name", () => {
    const sources = APPS.flatMap((app) => copySources(dockerfile, { APP: app }));
    expect(sources).toEqual(
      expect.arrayContaining([
        'package.json',
        'libs',
        'docs/openapi.json',
        'docs/asyncapi.json',
        'apps/charges',
      ]),
    );
    expect(excludedSources(readFileSync(join(ROOT, '.dockerignore'), 'utf8'))).toEqual([]);
  });

  // Proves the check catches the defect that once stopped every image build: docs/ left out entirely.
  it('reports the documents when docs/ is left out without an exception', () => {
    const old = [
      'node_modules',
      '**/node_modules',
      '.cache',
      'deploy',
      'docs',
      'tools/kafka',
      '**/*.spec.ts',
    ].join('\n');
    expect(excludedSources(old)).toEqual(['docs/openapi.json', 'docs/asyncapi.json']);
  });

  // Proves the matcher reads patterns as Docker does: parents, globs, `**`, and the last matching line wins.
  it.each([
    ['docs', 'docs/openapi.json', true],
    ['docs/*\n!docs/openapi.json', 'docs/openapi.json', false],
    ['docs/*\n!docs/openapi.json', 'docs/runbook.md', true],
    ['docs/*\n!docs/openapi.json', 'docs/asyncapi.json', true],
    ['**/*.spec.ts', 'libs/domain/src/money.spec.ts', true],
    ['**/*.spec.ts', 'libs/domain/src/money.ts', false],
    ['**/node_modules', 'node_modules', true],
    ['*.log', 'sub/x.log', false],
    ['/tools/kafka', 'tools/kafka/lib/a.jar', true],
    ['# docs', 'docs/a', false],
  ])('%j leaves out %s: %s', (ignore, path, ignored) => {
    expect(isIgnored(parseDockerignore(ignore), path)).toBe(ignored);
  });
});
