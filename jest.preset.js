// Shared jest settings: TypeScript through swc (CommonJS), the workspace path aliases of tsconfig.base.json.
const { compilerOptions } = require('./tsconfig.base.json');

const moduleNameMapper = {};
for (const [alias, [target]] of Object.entries(compilerOptions.paths)) {
  // `@pgw/charges-domain/*` (an app's domain project) maps each file below it.
  const pattern = alias.replace(/\//g, '\\/').replace('*', '(.*)');
  moduleNameMapper[`^${pattern}$`] = `<rootDir>/${target.replace('*', '$1')}`;
}

module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2023' }, module: { type: 'commonjs' } }],
  },
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper,
  // Some dependencies are ES modules (PGlite loads its WebAssembly with import()): jest runs with
  // --experimental-vm-modules (see package.json) so that Node loads them natively.
  testPathIgnorePatterns: ['/node_modules/', '/.cache/', '/dist/'],
  // .cache holds bench:ab's worktree of another revision: its packages would be a second @pgw/sdk.
  modulePathIgnorePatterns: ['<rootDir>/.cache/'],
};
