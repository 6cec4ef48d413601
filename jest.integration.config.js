// `npm run test:integration`: the suites that run against the real PostgreSQL (DATABASE_URL) and
// the real Kafka broker (KAFKA_BROKERS). They fail, rather than skip, without both.
const preset = require('./jest.preset.js');

module.exports = {
  ...preset,
  testMatch: ['<rootDir>/{apps,libs,tools}/**/*.int.spec.ts'],
  testTimeout: 60_000,
  // A failed integration test can leave a Kafka client reconnecting in the background; the results are
  // complete by then, so jest exits rather than wait for it.
  forceExit: true,
};
