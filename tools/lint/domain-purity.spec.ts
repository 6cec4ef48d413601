// Domain purity is proven by lint (issue 19): each app's src/domain is an Nx project tagged type:domain, so
// @nx/enforce-module-boundaries refuses a platform or contracts library there, and eslint.config.js's
// no-restricted-imports refuses framework, driver and telemetry packages in domain code. These lint a
// domain file that breaks each rule (in memory: nothing is written) and expect the error, so that a
// change to the lint configuration or to the projects that switches either rule off fails here.
import { readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';

const ROOT = join(__dirname, '..', '..');
// The probes exist in memory only, where the TypeScript project service cannot see them: type-aware rules off.
const eslint = new ESLint({ cwd: ROOT, overrideConfig: tseslint.configs.disableTypeChecked });
const NX = join(ROOT, 'node_modules', 'nx', 'dist', 'bin', 'nx.js');

async function errorsOf(
  filePath: string,
  code: string,
): Promise<Array<{ ruleId: string | null; message: string }>> {
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, filePath) });
  return result.messages
    .filter((m) => m.severity === 2)
    .map(({ ruleId, message }) => ({ ruleId, message }));
}

const appsWithDomain = readdirSync(join(ROOT, 'apps')).filter((app) =>
  existsSync(join(ROOT, 'apps', app, 'src', 'domain')),
);
/** Libraries that are a service's own code (the acquirer simulator, shared by its app and charges' specs). */
const libsWithDomain = readdirSync(join(ROOT, 'libs')).filter((lib) =>
  existsSync(join(ROOT, 'libs', lib, 'src', 'domain')),
);
const domainFolders = [
  ...appsWithDomain.map((app) => ({ project: `${app}-domain`, root: `apps/${app}/src/domain` })),
  ...libsWithDomain.map((lib) => ({ project: `${lib}-domain`, root: `libs/${lib}/src/domain` })),
];

beforeAll(() => {
  // The Nx rule reads the project graph that `nx show projects` writes (as `npm run lint` does first).
  execFileSync(process.execPath, [NX, 'show', 'projects'], { cwd: ROOT, stdio: 'ignore' });
});

describe('domain purity', () => {
  it('finds a domain folder in every service: each app with code of its own, and the acquirer simulator', () => {
    // Proves no service is left out of the purity rules: every app but the composition, the UI and the
    // simulator's (whose code is libs/acquirer-simulator's) has one.
    const apps = [
      'anticipation',
      'charges',
      'gateway',
      'ledger',
      'receivables',
      'vault',
      'webhooks',
    ];
    expect(appsWithDomain).toEqual(expect.arrayContaining(apps));
    expect(libsWithDomain).toEqual(['acquirer-simulator']);
  });

  it.each(domainFolders)(
    'every domain folder is a project tagged type:domain ($project)',
    ({ project, root }) => {
      const shown = JSON.parse(
        execFileSync(process.execPath, [NX, 'show', 'project', project, '--json'], {
          cwd: ROOT,
          encoding: 'utf8',
        }),
      ) as { root: string; tags: string[] };
      expect(shown.root).toBe(root);
      expect(shown.tags).toContain('type:domain');
    },
  );

  it.each([
    ['apps/gateway/src/domain/purity-probe.ts', '@pgw/platform-db'],
    ['apps/vault/src/domain/purity-probe.ts', '@pgw/platform-http'],
    ['libs/acquirer-simulator/src/domain/purity-probe.ts', '@pgw/acquirer'],
  ])('refuses a platform library in %s (%s)', async (filePath, library) => {
    const errors = await errorsOf(
      filePath,
      `import * as platform from '${library}';\nexport const probe = platform;\n`,
    );
    expect(errors.map((e) => e.ruleId)).toContain('@nx/enforce-module-boundaries');
  });

  it("refuses a platform library in an app's domain (the barrel that exports Fastify)", async () => {
    const errors = await errorsOf(
      'apps/charges/src/domain/purity-probe.ts',
      "import { ApiError } from '@pgw/platform-http';\nexport const probe = ApiError;\n",
    );
    expect(errors).toEqual([
      expect.objectContaining({
        ruleId: '@nx/enforce-module-boundaries',
        message: expect.stringContaining('type:domain'),
      }),
    ]);
  });

  it("refuses a relative import out of an app's domain into the rest of the app", async () => {
    const errors = await errorsOf(
      'apps/webhooks/src/domain/purity-probe.ts',
      "import { DEFAULT_CONFIG } from '../config';\nexport const probe = DEFAULT_CONFIG;\n",
    );
    expect(errors.map((e) => e.ruleId)).toContain('@nx/enforce-module-boundaries');
  });

  it.each([
    ['apps/receivables/src/domain/purity-probe.ts', 'fastify'],
    ['apps/ledger/src/domain/purity-probe.ts', 'knex'],
    ['apps/anticipation/src/domain/purity-probe.ts', 'pg'],
    ['libs/domain/src/purity-probe.ts', 'kafkajs'],
    ['libs/domain/src/purity-probe.ts', '@opentelemetry/api'],
    ['apps/gateway/src/domain/purity-probe.ts', 'fastify'],
    ['apps/vault/src/domain/purity-probe.ts', 'knex'],
    ['libs/acquirer-simulator/src/domain/purity-probe.ts', 'fastify'],
  ])('refuses a framework package in domain code (%s imports %s)', async (filePath, pkg) => {
    const errors = await errorsOf(
      filePath,
      `import * as framework from '${pkg}';\nexport const probe = framework;\n`,
    );
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          ruleId: 'no-restricted-imports',
          message: expect.stringContaining('Domain code is pure'),
        }),
      ]),
    );
  });

  it('accepts what domain code may import: @pgw/domain, its own files, node built-ins', async () => {
    const code =
      "import { randomBytes } from 'node:crypto';\nimport { addDays } from '@pgw/domain';\nimport { transition } from './charge';\nexport const probe = [randomBytes, addDays, transition];\n";
    expect(await errorsOf('apps/charges/src/domain/purity-probe.ts', code)).toEqual([]);
  });

  it('the same framework import outside domain code passes (the rule is about domain code only)', async () => {
    const errors = await errorsOf(
      'apps/charges/src/operations/purity-probe.ts',
      "import * as framework from 'fastify';\nexport const probe = framework;\n",
    );
    expect(errors).toEqual([]);
  });
});
