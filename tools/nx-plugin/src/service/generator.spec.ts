// The generator's output is a service that passes lint, typecheck and its own specs: `nx g @pgw/tools:service`
// runs in a scratch workspace (this workspace's libs, root configuration and plugin, its node_modules
// linked), and then tsc, ESLint (module boundaries included) and jest run on what it wrote.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTreeWithEmptyWorkspace } from 'nx/src/generators/testing-utils/create-tree-with-empty-workspace';
import serviceGenerator from './generator';

jest.setTimeout(300_000);
const ROOT = join(__dirname, '..', '..', '..', '..');
const ROOT_FILES = [
  'package.json',
  'nx.json',
  'tsconfig.base.json',
  'eslint.config.js',
  'jest.preset.js',
  'jest.config.js',
];
let ws: string;

/** Runs a workspace tool with node in the scratch workspace; its output on failure, for the assertion's message. */
function run(script: string, args: string[]): { status: number | null; output: string } {
  const result = spawnSync(
    process.execPath,
    [
      '--experimental-vm-modules',
      '--disable-warning=ExperimentalWarning',
      join(ws, 'node_modules', script),
      ...args,
    ],
    { cwd: ws, encoding: 'utf8' },
  );
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

beforeAll(() => {
  ws = mkdtempSync(join(tmpdir(), 'pgw-service-generator-'));
  symlinkSync(join(ROOT, 'node_modules'), join(ws, 'node_modules'));
  cpSync(join(ROOT, 'libs'), join(ws, 'libs'), {
    recursive: true,
    filter: (from) => !/\/(node_modules|dist)(\/|$)/.test(from),
  });
  cpSync(join(ROOT, 'tools', 'nx-plugin'), join(ws, 'tools', 'nx-plugin'), { recursive: true });
  for (const file of ROOT_FILES) cpSync(join(ROOT, file), join(ws, file));
  writeFileSync(
    join(ws, 'tsconfig.json'),
    JSON.stringify({ extends: './tsconfig.base.json', include: ['apps/**/*.ts'] }),
  );
  const generated = run('nx/dist/bin/nx.js', [
    'g',
    '@pgw/tools:service',
    'payouts',
    '--no-interactive',
  ]);
  expect(generated).toMatchObject({ status: 0 });
});
afterAll(() => {
  if (ws !== undefined) rmSync(ws, { recursive: true, force: true });
});

describe('nx g @pgw/tools:service', () => {
  it('writes the template shape, and the two path aliases into tsconfig.base.json without touching the rest', () => {
    for (const path of [
      'project.json',
      'src/main.ts',
      'src/instrument.ts',
      'src/index.ts',
      'src/service.ts',
      'src/migrations.ts',
      'src/routes/create-note.route.ts',
      'src/routes/create-note.route.spec.ts',
      'src/domain/project.json',
      'src/domain/note.ts',
      'src/domain/note.spec.ts',
      'src/data/notes.repository.ts',
      'src/consumers/consumers.ts',
      'src/operations/create-note.ts',
    ]) {
      expect([path, existsSync(join(ws, 'apps', 'payouts', path))]).toEqual([path, true]);
    }
    const before = readFileSync(join(ROOT, 'tsconfig.base.json'), 'utf8').split('\n');
    const after = readFileSync(join(ws, 'tsconfig.base.json'), 'utf8').split('\n');
    expect(after.filter((line) => !before.includes(line))).toEqual([
      '      "@pgw/payouts": ["apps/payouts/src/index.ts"],',
      '      "@pgw/payouts-domain/*": ["apps/payouts/src/domain/*"],',
    ]);
    expect(before.filter((line) => !after.includes(line))).toEqual([]);
    expect(
      JSON.parse(readFileSync(join(ws, 'apps', 'payouts', 'project.json'), 'utf8')).tags,
    ).toEqual(['type:app', 'scope:payouts']);
  });

  it('typechecks', () => {
    expect(run('typescript/bin/tsc', ['-p', 'tsconfig.json', '--noEmit'])).toEqual({
      status: 0,
      output: '',
    });
  });

  it('passes lint, its domain a type:domain project that lint holds to purity', () => {
    expect(run('nx/dist/bin/nx.js', ['show', 'projects'])).toMatchObject({ status: 0 });
    const domain = JSON.parse(
      execFileSync(
        process.execPath,
        [
          join(ws, 'node_modules', 'nx/dist/bin/nx.js'),
          'show',
          'project',
          'payouts-domain',
          '--json',
        ],
        { cwd: ws, encoding: 'utf8' },
      ),
    );
    expect(domain).toMatchObject({
      root: 'apps/payouts/src/domain',
      tags: ['type:domain', 'scope:payouts'],
    });
    expect(run('eslint/bin/eslint.js', ['apps/payouts'])).toEqual({ status: 0, output: '' });
    // The same lint fails once the domain imports a framework.
    const note = join(ws, 'apps', 'payouts', 'src', 'domain', 'note.ts');
    const pure = readFileSync(note, 'utf8');
    writeFileSync(
      note,
      `${pure}import { buildApp } from '@pgw/platform-http';\nexport const impure = buildApp;\n`,
    );
    try {
      const impure = run('eslint/bin/eslint.js', ['apps/payouts/src/domain']);
      expect(impure.status).toBe(1);
      expect(impure.output).toContain(
        'A project tagged with "type:domain" can only depend on libs tagged with "type:domain"',
      );
    } finally {
      writeFileSync(note, pure);
    }
  });

  it('passes its own specs: the route through every layer on the embedded database, and the domain rule', () => {
    const specs = run('jest/bin/jest.js', ['--config', 'jest.config.js', 'apps/payouts']);
    expect(specs.status).toBe(0);
    expect(specs.output).toMatch(/Tests:\s+4 passed, 4 total/);
  });
});

describe("the generator's refusals", () => {
  it('refuses a name that is not kebab-case, and a service that exists', async () => {
    const tree = createTreeWithEmptyWorkspace();
    await expect(serviceGenerator(tree, { name: 'Payouts_2' })).rejects.toThrow('kebab-case');
    tree.write('apps/payouts/src/index.ts', '');
    await expect(serviceGenerator(tree, { name: 'payouts' })).rejects.toThrow(
      'apps/payouts exists already',
    );
  });
});
