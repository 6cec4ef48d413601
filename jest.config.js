// `npm test`: everything that needs no outside server: unit tests and the all-in-one end-to-end suite.
// Integration tests (`*.int.spec.ts`) need PostgreSQL and Kafka and run with `npm run test:integration`.
const preset = require('./jest.preset.js');

module.exports = {
  ...preset,
  testMatch: ['<rootDir>/{apps,libs,tools}/**/*.spec.ts'],
  testPathIgnorePatterns: [...preset.testPathIgnorePatterns, '\\.int\\.spec\\.ts$'],
  // The embedded database boots in 2-4 s on a quiet machine and much longer on a busy one.
  testTimeout: 60_000,
  // One initialised PGlite data directory every suite's in-memory database starts from (skips initdb).
  globalSetup: '<rootDir>/libs/testing/src/unit-global-setup.ts',
};
