// ESLint: typescript-eslint (with type information, for no-floating-promises) and Nx module boundaries:
// a domain library imports no framework, apps never import each other (nothing imports the vault), and
// only the all-in-one composition sees every app.
const nx = require('@nx/eslint-plugin');
const tseslint = require('typescript-eslint');
const importX = require('eslint-plugin-import-x');
const { createTypeScriptImportResolver } = require('eslint-import-resolver-typescript');

module.exports = [
  { ignores: ['**/node_modules/**', '**/dist/**', '.cache/**', '.data/**', 'tools/kafka/**', 'coverage/**', '**/*.js'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    plugins: { '@nx': nx },
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: __dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': ['error', { selector: 'ExportAllDeclaration', message: 'Use named exports (no export *).' }],
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          depConstraints: [
            { sourceTag: 'type:domain', onlyDependOnLibsWithTags: ['type:domain'] },
            // Contracts use the domain's pure rules (an event id is a domain id, from its one generator).
            { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: ['type:contracts', 'type:domain'] },
            { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:testing'] },
            { sourceTag: 'type:platform', onlyDependOnLibsWithTags: ['type:platform', 'type:contracts', 'type:domain', 'type:testing'] },
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:platform', 'type:contracts', 'type:domain', 'type:testing'] },
            { sourceTag: 'type:composition', onlyDependOnLibsWithTags: ['type:app', 'type:platform', 'type:contracts', 'type:domain', 'type:testing', 'type:sdk'] },
            // The integrators' client: what it imports ships with it, so only pure domain code (the webhook signature).
            { sourceTag: 'type:sdk', onlyDependOnLibsWithTags: ['type:domain'] },
            // The dashboard (apps/dashboard) runs in the browser: it reaches the system through the SDK and HTTP only.
            { sourceTag: 'type:ui', onlyDependOnLibsWithTags: ['type:sdk'] },
            // The sandbox CLI is an integrator's tool: it reaches the gateway through the published SDK only.
            { sourceTag: 'type:cli', onlyDependOnLibsWithTags: ['type:sdk'] },
          ],
        },
      ],
    },
  },
  {
    // The all-in-one process is the one place that composes the apps themselves.
    files: ['apps/all-in-one/**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: ['@pgw/gateway', '@pgw/vault', '@pgw/charges', '@pgw/ledger', '@pgw/receivables', '@pgw/anticipation', '@pgw/webhooks', '@pgw/acquirer-sim'],
          // The SDK's end-to-end suite drives the all-in-one through the SDK (e2e-sdk.spec.ts).
          depConstraints: [{ sourceTag: 'type:composition', onlyDependOnLibsWithTags: ['type:app', 'type:platform', 'type:contracts', 'type:domain', 'type:testing', 'type:sdk'] }],
        },
      ],
    },
  },
  {
    // No import cycles, across packages (through the tsconfig paths) as within one: a cycle makes the load
    // order decide which module sees the other's exports as undefined, and it hides a missing layer.
    files: ['**/*.ts', '**/*.tsx'],
    plugins: { 'import-x': importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: 'tsconfig.base.json' })],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    // Domain code is pure: libs/domain and each app's src/domain, and the simulator library's (a project of its own, tagged type:domain, so
    // @nx/enforce-module-boundaries keeps it to other type:domain projects) import no framework, driver or
    // telemetry package either. tools/lint/domain-purity.spec.ts proves that both rules bite.
    files: ['apps/*/src/domain/**/*.ts', 'libs/*/src/domain/**/*.ts', 'libs/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['fastify', 'fastify/*', 'fastify-*', '@fastify/*', 'knex', 'knex/*', 'knex-*', 'pg', 'pg/*', 'pg-*', '@electric-sql/*', 'kafkajs', 'kafkajs/*', '@kafkajs/*', '@opentelemetry/*', 'avsc', 'ajv', 'ajv-*'],
              message: 'Domain code is pure: no framework, driver or telemetry (docs/engineering.md, "A service").',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.spec.ts', '**/*.scenarios.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off', '@typescript-eslint/no-explicit-any': 'off' },
  },
];
