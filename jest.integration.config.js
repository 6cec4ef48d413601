// `npm run test:integration`: the suites that run against the real PostgreSQL (DATABASE_URL) and
// the real Kafka broker (KAFKA_BROKERS); with neither set, testcontainers starts both where a container
// runtime answers (libs/testing/src/integration-global-setup.ts). They fail, rather than skip, without.
const preset = require('./jest.preset.js');

module.exports = {
  ...preset,
  testMatch: ['<rootDir>/{apps,libs,tools}/**/*.int.spec.ts'],
  testTimeout: 60_000,
  globalSetup: '<rootDir>/libs/testing/src/integration-global-setup.ts',
  globalTeardown: '<rootDir>/libs/testing/src/integration-global-teardown.ts',
  // A failed integration test can leave a Kafka client reconnecting in the background; the results are
  // complete by then, so jest exits rather than wait for it.
  forceExit: true,
};
