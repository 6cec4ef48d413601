import { ConfigError, envOptionalSecret } from './config';

describe('envOptionalSecret', () => {
  it('is undefined when unset or empty (a Secret key left blank), the value when long enough, and refuses a short one', () => {
    expect(envOptionalSecret({}, 'PRINCIPAL_SECRET_PREVIOUS')).toBeUndefined();
    expect(envOptionalSecret({ PRINCIPAL_SECRET_PREVIOUS: '' }, 'PRINCIPAL_SECRET_PREVIOUS')).toBeUndefined();
    expect(envOptionalSecret({ PRINCIPAL_SECRET_PREVIOUS: 'p'.repeat(32) }, 'PRINCIPAL_SECRET_PREVIOUS')).toBe('p'.repeat(32));
    expect(() => envOptionalSecret({ PRINCIPAL_SECRET_PREVIOUS: 'short' }, 'PRINCIPAL_SECRET_PREVIOUS')).toThrow(ConfigError);
  });
});
