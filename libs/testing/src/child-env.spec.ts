import { childEnv } from './child-env';

describe('childEnv', () => {
  // Proves a variable set in the caller's shell does not reach a spec's child process unless the spec passes it.
  it('keeps PATH and HOME, drops everything else of the parent, and adds what the spec means', () => {
    const parent = {
      PATH: '/bin',
      HOME: '/root',
      ADMIN_TOKEN: 'from-the-shell',
      PORT: '1',
      DATABASE_URL: 'postgres://nope',
      npm_config_prefix: '/x',
    };
    expect(childEnv({ PORT: '8123', DEMO: '1' }, parent)).toEqual({
      PATH: '/bin',
      HOME: '/root',
      PORT: '8123',
      DEMO: '1',
    });
  });
});
