import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { build, type BuildOptions } from 'esbuild';
import ts from 'typescript';

// `npm run sdk:build`: libs/sdk/dist as npm publishes it (package.json `exports`): one CommonJS and one ES
// module bundle, each with the workspace code the SDK imports inlined (the webhook signature, the domain
// code of its fixed lists of names), and the declarations of the SDK's own files. The only dependency left
// outside is openapi-fetch.

const ROOT = join(__dirname, '..', '..', '..');
const SDK = join(ROOT, 'libs', 'sdk');
const ENTRY = join(SDK, 'src', 'index.ts');
const EXTERNAL = ['openapi-fetch'];

export async function buildPackage(outDir: string = join(SDK, 'dist')): Promise<void> {
  rmSync(outDir, { recursive: true, force: true });
  const common: BuildOptions = {
    entryPoints: [ENTRY],
    bundle: true,
    platform: 'node',
    target: 'node20',
    external: EXTERNAL,
    tsconfig: join(ROOT, 'tsconfig.base.json'),
    logLevel: 'silent',
  };
  await build({ ...common, format: 'cjs', outfile: join(outDir, 'index.cjs') });
  await build({ ...common, format: 'esm', outfile: join(outDir, 'index.mjs') });
  writeDeclarations(outDir);
}

/** The .d.ts of libs/sdk/src only: the bundled workspace code is an implementation detail, and must not leak into the types. */
function writeDeclarations(outDir: string): void {
  const base = ts.parseJsonConfigFileContent(
    ts.readConfigFile(join(ROOT, 'tsconfig.base.json'), ts.sys.readFile).config,
    ts.sys,
    ROOT,
  );
  const declarationsDir = join(outDir, '.declarations');
  const program = ts.createProgram([ENTRY], {
    ...base.options,
    declaration: true,
    emitDeclarationOnly: true,
    sourceMap: false,
    declarationMap: false,
    noEmit: false,
    rootDir: ROOT,
    outDir: declarationsDir,
  });
  const sdkSource = join(declarationsDir, 'libs', 'sdk', 'src') + sep;
  const written: string[] = [];
  const result = program.emit(undefined, (fileName, text) => {
    if (!fileName.startsWith(sdkSource)) return;
    if (text.includes("'@pgw/"))
      throw new Error(
        `${fileName}: a declaration names a workspace package, which the published package does not have`,
      );
    const target = join(outDir, relative(sdkSource, fileName));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
    written.push(target);
  });
  const errors = ts
    .getPreEmitDiagnostics(program)
    .concat(result.diagnostics)
    .filter((d) => d.category === ts.DiagnosticCategory.Error);
  if (errors.length > 0)
    throw new Error(
      ts.formatDiagnostics(errors, {
        getCanonicalFileName: (f) => f,
        getCurrentDirectory: () => ROOT,
        getNewLine: () => '\n',
      }),
    );
  if (!written.some((f) => f === join(outDir, 'index.d.ts')))
    throw new Error('no index.d.ts was written');
}

if (require.main === module) {
  buildPackage().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
