import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { buildPackage } from './build-package';

// For the package's tests: @pgw/sdk as an integrator's project gets it — built, packed by npm, unpacked
// into an empty project's node_modules, with openapi-fetch beside it as npm would install it (linked to
// this workspace's copy: the tests need no registry). Nothing else of the workspace is reachable from there.

const ROOT = join(__dirname, '..', '..', '..');
const LINKED = ['openapi-fetch', 'openapi-typescript-helpers', '@types/node'];

export interface Packed {
  name: string;
  version: string;
  /** Paths inside the tarball, relative to the package. */
  files: string[];
  /** The project directory whose node_modules holds @pgw/sdk. */
  appDir: string;
}

export async function installPackedSdk(dir: string): Promise<Packed> {
  const pkg = join(dir, 'pkg');
  mkdirSync(pkg, { recursive: true });
  copyFileSync(join(ROOT, 'libs', 'sdk', 'package.json'), join(pkg, 'package.json'));
  copyFileSync(join(ROOT, 'libs', 'sdk', 'README.md'), join(pkg, 'README.md'));
  await buildPackage(join(pkg, 'dist'));
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', dir], {
      cwd: pkg,
      encoding: 'utf8',
    }),
  ) as Array<{ name: string; version: string; filename: string; files: Array<{ path: string }> }>;
  if (packed === undefined) throw new Error('npm pack made no tarball');
  const appDir = join(dir, 'app');
  const installed = join(appDir, 'node_modules', '@pgw', 'sdk');
  mkdirSync(installed, { recursive: true });
  execFileSync('tar', [
    '-xzf',
    join(dir, packed.filename),
    '-C',
    installed,
    '--strip-components=1',
  ]);
  for (const dependency of LINKED) {
    mkdirSync(join(appDir, 'node_modules', dependency, '..'), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', dependency), join(appDir, 'node_modules', dependency));
  }
  return {
    name: packed.name,
    version: packed.version,
    files: packed.files.map((f) => f.path),
    appDir,
  };
}
