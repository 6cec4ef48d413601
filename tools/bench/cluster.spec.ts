import { startCluster } from './cluster';

describe('startCluster', () => {
  it('refuses at once, saying what to start, when no schema registry answers', async () => {
    // The services would start healthy without one, and every relay would then fail while the run waits.
    const url = 'http://127.0.0.1:1/apis/ccompat/v7';
    await expect(
      startCluster({
        logDir: '/tmp/pgw-cluster-spec',
        kafkaBrokers: '127.0.0.1:1',
        env: { SCHEMA_REGISTRY_URL: url },
      }),
    ).rejects.toThrow(`no schema registry at ${url}`);
  });
});
