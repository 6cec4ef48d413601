// ESLint: typescript-eslint (with type information, for no-floating-promises) and Nx module boundaries:
// a domain library imports no framework, apps never import each other (nothing imports the vault), and
// only the all-in-one composition sees every app.
const nx = require('@nx/eslint-plugin');
const tseslint = require('typescript-eslint');

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
            { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: ['type:contracts'] },
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
    files: ['**/*.spec.ts', '**/*.scenarios.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off', '@typescript-eslint/no-explicit-any': 'off' },
  },
];
