import { ConfigError, envOptionalSecret } from './config';

describe('envOptionalSecret', () => {
  it('is undefined when unset or empty (a Secret key left blank), the value when long enough, and refuses a short one', () => {
    expect(envOptionalSecret({}, 'ACQUIRER_SIM_KEY')).toBeUndefined();
    expect(envOptionalSecret({ ACQUIRER_SIM_KEY: '' }, 'ACQUIRER_SIM_KEY')).toBeUndefined();
    expect(envOptionalSecret({ ACQUIRER_SIM_KEY: 'p'.repeat(32) }, 'ACQUIRER_SIM_KEY')).toBe(
      'p'.repeat(32),
    );
    expect(() => envOptionalSecret({ ACQUIRER_SIM_KEY: 'short' }, 'ACQUIRER_SIM_KEY')).toThrow(
      ConfigError,
    );
  });
});
