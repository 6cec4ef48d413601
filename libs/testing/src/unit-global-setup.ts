// jest globalSetup of `npm test` (jest.config.js): every suite's in-memory embedded PostgreSQL (PGlite) starts
// from one initialised data directory, made here once per PGlite version, instead of running initdb again:
// initdb is most of a PGlite boot (3–7 s on a busy machine of this kind, 1.7 s from the copy), and the
// suites boot about two hundred of them. createPgliteKnex(null) reads the copy named by PGLITE_TEMPLATE.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');

export default async function globalSetup(): Promise<void> {
  const { version } = JSON.parse(
    readFileSync(join(ROOT, 'node_modules', '@electric-sql', 'pglite', 'package.json'), 'utf8'),
  ) as { version: string };
  const dir = join(ROOT, '.cache', 'pglite');
  const template = join(dir, `initdb-${version}.tar`);
  if (!existsSync(template)) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { PGlite } = require('@electric-sql/pglite') as typeof import('@electric-sql/pglite');
    const pglite = new PGlite();
    await pglite.waitReady;
    const dump = await pglite.dumpDataDir('none');
    await pglite.close();
    mkdirSync(dir, { recursive: true });
    // Written whole, then renamed: a run stopped half-way leaves no partial copy for the next.
    const partial = `${template}.${process.pid}`;
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    renameSync(partial, template);
  }
  process.env.PGLITE_TEMPLATE = template;
}
